import {
  ITranslator,
  nullTranslator,
  TranslationBundle
} from '@jupyterlab/translation';

/**
 * The panel and the cards speak through JupyterLab's translation system: the
 * catalogue of this domain (jupyter_memory/locale/<lang>/LC_MESSAGES/
 * jupyter_memory_lab.json, found by jupyterlab_server through the
 * `jupyterlab.locale` entry point) in the language the person picked in
 * Settings → Language.
 *
 * Every user-visible string goes through a bundle named `trans` so that
 * scripts/compile_lab_catalog.py finds it: `trans.__('Save')`,
 * `trans._n('%1 entry', '%1 entries', n)`, `trans._p('proposal source',
 * 'manual')`; placeholders are %1, %2… (in `_n`, %1 is the count). The
 * English text is the msgid: with no catalogue the UI reads as it always did.
 */
export const DOMAIN = 'jupyter_memory_lab';

export type Trans = TranslationBundle;

/** The bundle of our domain; English when the front end has no translator. */
export function loadTrans(translator: ITranslator | null | undefined): Trans {
  return (translator ?? nullTranslator).load(DOMAIN);
}
