// @ts-check
// Renderer registrations without the terminal UI (pi-ext built without its
// `tui` feature): the binary has no renderers to register.

export class Registrations {
  /** @param {unknown} _host @param {string} _label @param {() => string} _piVersion */
  constructor(_host, _label, _piVersion) {}

  /**
   * @param {unknown} _manifest
   * @returns {string[]} the notices for what this pi lacks: none
   */
  register(_manifest) {
    return [];
  }
}
