import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

/** The REST API of the jupyter-memory server extension, under `/jupyter-memory/`. */

export type Layer = 'user' | 'project';

export interface IProposal {
  id: string;
  text: string;
  kind: string;
  evidence_quote: string;
  source: string;
  status: string;
  layer?: string | null;
  project?: string | null;
  source_ref?: any;
  created?: string;
  [key: string]: any;
}

export interface IQueue {
  items: IProposal[];
  count: number;
  enabled: boolean;
}

export interface ILibraryStatus {
  rules: number;
  info: number;
  chars: number;
  budget: number;
  mode: string;
  updated?: string | null;
  version?: string;
  [key: string]: any;
}

/** One read of a knowledge file: `version` is the sha256 of its bytes. */
export interface IKnowledge {
  layer: Layer;
  project: string | null;
  text: string;
  version: string;
  status: ILibraryStatus;
}

/** A knowledge file's text at one version (the newer side of a conflict). */
export interface IKnowledgeVersion {
  text: string;
  version: string;
}

/**
 * The 409 of a stale save: the server's `current` file and the text the
 * person tried to save (`yours`) on top of the version it was edited from.
 */
export interface IKnowledgeConflict {
  message: string;
  error: 'conflict';
  state: 'stale_version';
  path: string;
  current: IKnowledgeVersion;
  yours: { text: string; base: string };
}

export interface IReorganizeJob {
  layer: Layer;
  project: string | null;
  state: 'running' | 'done' | 'failed' | 'timed_out';
  stage: string;
  elapsed: number;
  timeout: number;
  result: any;
  error: { message: string } | null;
}

export interface ISettings {
  enabled: boolean;
  auto_suggestions: boolean;
  [key: string]: any;
}

export interface IProject {
  id: string;
  folder: string;
}

export interface IMemoryHit {
  id: string;
  title: string;
  text: string;
  type: string;
  tier: string;
  layer: string;
  project: string | null;
  score: number;
}

export interface ICaseRow {
  date: string;
  type: string;
  summary: string;
  evidence: string[];
  status: string;
}

export interface ICaseSummary {
  id: string;
  name: string;
  period: string;
  rows: ICaseRow[];
}

export interface ICaseEntry {
  case: string;
  file: string;
  title: string;
  type: string;
  date: string;
  status: string;
  evidence: string[];
  hypotheses: string[];
  body?: string;
}

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

const settings = ServerConnection.makeSettings();

/**
 * Call the API. ServerConnection.makeRequest adds the token and the XSRF header.
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
