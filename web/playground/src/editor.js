// @ts-check
// The Script mode editor: CodeMirror 6 with each language's highlighting (lang-javascript,
// lang-python, and the legacy modes for Lua, Ruby and Perl); Mod-Enter runs.
import { Compartment, EditorState, Prec } from '@codemirror/state';
import {
  EditorView,
  drawSelection,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
} from '@codemirror/view';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import {
  StreamLanguage,
  bracketMatching,
  defaultHighlightStyle,
  indentOnInput,
  syntaxHighlighting,
} from '@codemirror/language';
import { javascript } from '@codemirror/lang-javascript';
import { python } from '@codemirror/lang-python';
import { lua } from '@codemirror/legacy-modes/mode/lua';
import { perl } from '@codemirror/legacy-modes/mode/perl';
import { ruby } from '@codemirror/legacy-modes/mode/ruby';

/**
 * @param {string} language
 * @returns {import('@codemirror/state').Extension}
 */
function languageSupport(language) {
  switch (language) {
    case 'javascript':
    case 'typescript':
      return javascript({ typescript: language === 'typescript' });
    case 'python':
      return python();
    case 'lua':
      return StreamLanguage.define(lua);
    case 'ruby':
      return StreamLanguage.define(ruby);
    case 'perl':
      return StreamLanguage.define(perl);
    default:
      return [];
  }
}

// The editor lives in a shadow root: CodeMirror's styles then go to the root's adopted style
// sheets, which the page's Content-Security-Policy (style-src 'self', no inline styles) allows,
// where in the document itself they would be an inline <style> element that it blocks.
const theme = EditorView.theme({
  '&': { height: '100%', fontSize: '14px', backgroundColor: '#fff' },
  '.cm-scroller': {
    fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace',
  },
});

/**
 * The editor, in a shadow root of `host`; `onRun` is called on Mod-Enter, `onChange` with the
 * whole text after each change.
 * @param {HTMLElement} host
 * @param {{ onRun: () => void, onChange: (code: string) => void }} handlers
 */
export function createEditor(host, { onRun, onChange }) {
  const language = new Compartment();
  const root = host.attachShadow({ mode: 'open' });
  const view = new EditorView({
    parent: root,
    root,
    state: EditorState.create({
      doc: '',
      extensions: [
        theme,
        lineNumbers(),
        highlightActiveLineGutter(),
        history(),
        drawSelection(),
        indentOnInput(),
        bracketMatching(),
        highlightActiveLine(),
        syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
        Prec.highest(
          keymap.of([
            {
              key: 'Mod-Enter',
              run: () => {
                onRun();
                return true;
              },
            },
          ]),
        ),
        keymap.of([...defaultKeymap, ...historyKeymap]),
        language.of([]),
        EditorView.contentAttributes.of({ 'aria-label': 'Code editor' }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) onChange(update.state.doc.toString());
        }),
      ],
    }),
  });
  return {
    view,
    code: () => view.state.doc.toString(),
    /** @param {string} code */
    setCode(code) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: code } });
    },
    /** @param {string} id */
    setLanguage(id) {
      view.dispatch({ effects: language.reconfigure(languageSupport(id)) });
    },
    focus: () => view.focus(),
  };
}
