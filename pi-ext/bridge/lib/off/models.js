// @ts-check
// Model calls without the models part (pi-ext built without its `models`
// feature): the binary makes none.

export class ModelCalls {
  /** @param {unknown} _o */
  constructor(_o) {}

  /**
   * @param {{ method: string }} r
   * @returns {Promise<unknown>}
   */
  async handle(r) {
    throw new Error(`${r.method}: this extension was built without pi-ext's \`models\` feature`);
  }
}
