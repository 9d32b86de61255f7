/** The Emscripten module factory `@echogarden/rnnoise-wasm` exports (it ships no types). */
declare module '@echogarden/rnnoise-wasm' {
  const factory: () => Promise<unknown>;
  export default factory;
}
