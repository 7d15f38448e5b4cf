import { Notification } from '@jupyterlab/apputils';
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

import { loadTrans, Trans } from './i18n';

/** The REST API of the jupyter-memory server extension, under `/jupyter-memory/`. */

export type Layer = 'user' | 'project';

// The response types are generated from the JSON schemas the server's answers
// are tested against (scripts/rest_schemas_ts.py): edit a schema, not these.
export type {
  IAppliedProposal,
  IBusyError,
  ICaseEntry,
  ICaseRow,
  ICaseSearch,
  ICaseSummary,
  IKnowledge,
  IKnowledgeConflict,
  ILibraryStatus,
  IMemoryHit,
  INeighbour,
  IProcessAllResult,
  IProject,
  IProposal,
  IQueue,
  IReorganizeJob,
  ISettings
} from './schemas';
import type { IBusyError, IKnowledgeConflict } from './schemas';

/** A knowledge file's text at one version (the newer side of a conflict). */
export type IKnowledgeVersion = IKnowledgeConflict['current'];

/** An error answered by the server, with the message it wrote for a person. */
export class MemoryApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly payload: any
  ) {
    super(message);
  }
}

export function isKnowledgeConflict(
  error: unknown
): error is MemoryApiError & { payload: IKnowledgeConflict } {
  return (
    error instanceof MemoryApiError &&
    error.status === 409 &&
    error.payload?.state === 'stale_version' &&
    typeof error.payload?.current?.text === 'string' &&
    typeof error.payload?.current?.version === 'string'
  );
}

/** A route that waited past its deadline (503 busy): nothing was written. */
export function isBusy(
  error: unknown
): error is MemoryApiError & { payload: IBusyError } {
  return (
    error instanceof MemoryApiError &&
    error.status === 503 &&
    error.payload?.error === 'busy'
  );
}

/** How often a busy route is asked again before its error is shown. */
export const BUSY_RETRIES = 3;

// The busy notice speaks the person's language once the plugin hands its bundle.
let trans: Trans = loadTrans(null);
let busyToast = '';

export function setBusyTrans(bundle: Trans): void {
  trans = bundle;
}

/** Say what holds the route (one notification, updated), then wait retry_after. */
async function waitBusy(busy: IBusyError): Promise<void> {
  const seconds = Math.max(1, Math.ceil(busy.retry_after));
  const message = trans.__('Busy: %1, retrying…', busy.held_by);
  const options = { autoClose: seconds * 1000 };
  if (
    !busyToast ||
    !Notification.update({ id: busyToast, message, ...options })
  ) {
    busyToast = Notification.info(message, options);
  }
  await new Promise(resolve => setTimeout(resolve, seconds * 1000));
}

const settings = ServerConnection.makeSettings();

/**
 * Call the API. ServerConnection.makeRequest adds the token and the XSRF header.
 * A busy answer (503: a lock another process holds, a slow git) is asked again
 * after its retry_after, BUSY_RETRIES times, with a notice saying what holds it.
 */
export async function requestAPI<T>(
  path: string,
  init: RequestInit = {},
  query: Record<string, string | null | undefined> = {}
): Promise<T> {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== null && value !== undefined && value !== '') {
      params.set(key, value);
    }
  }
  const qs = params.toString();
  const url =
    URLExt.join(settings.baseUrl, 'jupyter-memory', path) +
    (qs ? `?${qs}` : '');
  for (let attempt = 0; ; attempt++) {
    try {
      return await fetchJSON<T>(url, init);
    } catch (error) {
      if (!isBusy(error)) {
        throw error;
      }
      if (attempt >= BUSY_RETRIES) {
        const message = trans.__(
          'Busy: %1. Try again in a moment.',
          error.payload.held_by
        );
        throw new MemoryApiError(error.status, message, error.payload);
      }
      await waitBusy(error.payload);
    }
  }
}

async function fetchJSON<T>(url: string, init: RequestInit): Promise<T> {
  let response: Response;
  try {
    response = await ServerConnection.makeRequest(url, init, settings);
  } catch (error) {
    throw new ServerConnection.NetworkError(error as TypeError);
  }
  const raw = await response.text();
  let data: any = null;
  if (raw.length > 0) {
    try {
      data = JSON.parse(raw);
    } catch {
      data = { message: raw };
    }
  }
  if (!response.ok) {
    const message =
      data && typeof data.message === 'string'
        ? data.message
        : `HTTP ${response.status}`;
    throw new MemoryApiError(response.status, message, data);
  }
  return data as T;
}

export function postJSON<T>(
  path: string,
  body: unknown = {},
  query: Record<string, string | null | undefined> = {}
): Promise<T> {
  return requestAPI<T>(
    path,
    { method: 'POST', body: JSON.stringify(body) },
    query
  );
}

export function putJSON<T>(
  path: string,
  body: unknown,
  query: Record<string, string | null | undefined> = {}
): Promise<T> {
  return requestAPI<T>(
    path,
    { method: 'PUT', body: JSON.stringify(body) },
    query
  );
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) {
    return error.message;
  }
  return String(error);
}
