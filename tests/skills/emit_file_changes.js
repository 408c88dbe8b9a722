'use strict';
// Drives the runtime's own FileTracker (sandbox/runtime/files.js) the way
// runtime.js does: writes the init files the host sent, lets "agent code"
// change /skills and /workspace (hostile changes included), and prints the
// `done` frame the runtime would send, so the host-side test checks the exact
// shapes. Usage: node emit_file_changes.js <dir> (reads <dir>/init.json).
const fs = require('fs');
const path = require('path');
const { FileTracker } = require(path.join(__dirname, '..', '..', 'sandbox', 'runtime', 'files.js'));

const dir = process.argv[2];
const roots = { skills: path.join(dir, 'skills'), workspace: path.join(dir, 'workspace') };
for (const root of Object.values(roots)) fs.mkdirSync(root, { recursive: true });
const tracker = new FileTracker(roots, { maxFileBytes: 1000, maxFiles: 50 });
tracker.writeInitial(JSON.parse(fs.readFileSync(path.join(dir, 'init.json'), 'utf8')));

// What a block's code does.
const skills = roots.skills;
const workspace = roots.workspace;
fs.mkdirSync(path.join(skills, 'csv-report'));
fs.writeFileSync(path.join(skills, 'csv-report', 'SKILL.md'), '---\nname: csv-report\ndescription: CSV.\n---\n');
fs.writeFileSync(path.join(skills, 'csv-report', 'index.js'), 'module.exports = (rows) => rows.length;\n');
fs.appendFileSync(path.join(skills, 'examples', 'data-processor', 'index.js'), '// hijacked\n');
fs.unlinkSync(path.join(skills, 'old-skill', 'index.js'));
fs.symlinkSync('/etc/passwd', path.join(skills, 'csv-report', 'passwd'));
fs.writeFileSync(path.join(workspace, 'big.bin'), Buffer.alloc(2000, 1));
fs.mkdirSync(path.join(workspace, 'out'));
fs.writeFileSync(path.join(workspace, 'out', 'result.json'), Buffer.from([0x7b, 0x7d, 0x00, 0xff]));
fs.writeFileSync(path.join(workspace, 'bad name.txt'), 'x');
fs.symlinkSync('/', path.join(workspace, 'root'));

process.stdout.write(JSON.stringify({ type: 'done', exec: 'x1', ok: true, value: null, files: tracker.changes(), ms: 1 }) + '\n');
