'use strict';
// The smallest useful skill: one exported function that takes plain data and
// returns a small, JSON-safe value. Replace run() with your own code.

/**
 * @param {object} input any plain object
 * @returns {{ok: boolean, skill: string, received: string[]}} what the skill saw
 */
function run(input = {}) {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new TypeError('run(input) expects a plain object');
  }
  return { ok: true, skill: 'template-skill', received: Object.keys(input).sort() };
}

module.exports = { run };
