// Bundled by esbuild at build time (../CMakeLists.txt) into the engine's /stdlib/typescript.js.
// The QuickJS driver loads it the first time code fails to compile as JavaScript, takes the
// function below and deletes the global again. Types are stripped, never checked.
import { transform } from 'sucrase';

globalThis.__sandbox_typescript_strip = (code) =>
  transform(code, { transforms: ['typescript'], disableESTransforms: true }).code;
