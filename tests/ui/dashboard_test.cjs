// The dashboard in a real browser: Debian's chromium driven by playwright-core,
// against the real mcp-harness binary (started by dashboard_test.cpp) with the
// real sandbox, the npm MCP servers and the fake LLM over HTTP. Every step
// checks what a person would see; a CSP violation or a script error fails the
// run. With SCREENSHOT_DIR set, each page is saved there as a PNG
// (scripts/dashboard-screenshots.sh writes docs/dashboard/ that way).
//
// Environment: HARNESS_URL, USER_KEY (alice), ADMIN_KEY, LLM_URL (the fake's
// base, for /_fake/script), FILES_DIR (the filesystem server's root),
// OPEN_URL (a second server that has no key yet, so it runs open), OAUTH_URL
// (tests/mcp/oauth_mcp_server.js: a user-scoped MCP server's OAuth, whose
// /authorize approves by itself and sends the browser back to the harness).
'use strict';
const assert = require('node:assert/strict');
const path = require('node:path');
const {chromium} = require('playwright-core');

const base = process.env.HARNESS_URL;
const userKey = process.env.USER_KEY;
const adminKey = process.env.ADMIN_KEY;
const llm = process.env.LLM_URL;
const filesDir = process.env.FILES_DIR;
const openServer = process.env.OPEN_URL;
const oauthServer = process.env.OAUTH_URL;
const shots = process.env.SCREENSHOT_DIR || '';
const timeout = 20000;

async function api(method, target, body, key = userKey, extraHeaders = {}) {
  const response = await fetch(base + target, {
    method,
    headers: {Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...extraHeaders},
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${target}: ${response.status} ${text}`);
  return JSON.parse(text);
}

async function script(steps) {
  const response = await fetch(`${llm}/_fake/script`, {method: 'POST', body: JSON.stringify(steps)});
  assert.equal(response.status, 200, 'the fake LLM took the script');
}

async function shot(page, name) {
  if (!shots) return;
  await page.screenshot({path: path.join(shots, `${name}.png`), fullPage: true});
  console.log(`screenshot ${name}.png`);
}

// The next tab that opens the authorization server's /authorize gets a stand-in
// page, so the dashboard is seen with its link first; resolves to the URL the
// tab opened ({seen}), which the test then visits for real.
async function holdAuthorize(context) {
  let opened;
  const seen = new Promise((resolve) => {
    opened = resolve;
  });
  await context.route(`${oauthServer}/authorize**`, async (route) => {
    opened(route.request().url());
    await route.fulfill({status: 200, contentType: 'text/plain', body: 'held by the dashboard test'});
  }, {times: 1});
  return {seen};
}

async function signIn(page, key) {
  await page.goto(`${base}/ui/`);
  await page.locator('#key').fill(key);
  await page.getByRole('button', {name: 'Sign in'}).click();
}

async function main() {
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  const problems = [];
  const context = await browser.newContext({viewport: {width: 1280, height: 800}});
  const page = await context.newPage();
  page.setDefaultTimeout(timeout);
  page.on('console', (m) => {
    if (m.type() === 'error' && !/status of 40[14]/.test(m.text())) problems.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));

  // A skill of alice's, written the way agent code writes one: through /execute.
  const skillCode = [
    "await fs.mkdir('/skills/word-count', {recursive: true});",
    "await fs.writeFile('/skills/word-count/SKILL.md', '---\\nname: word-count\\ndescription: Counts the words of a text\\n---\\n# Word count\\n\\nCall it with `count(text)`; it returns **a number**.\\n');",
    "await fs.writeFile('/skills/word-count/index.js', 'module.exports = (text) => text.split(/\\\\s+/).filter(Boolean).length;\\n');",
    "return 'saved';",
  ].join('\n');
  const saved = await api('POST', '/execute', {code: skillCode});
  assert.equal(saved.result, 'saved', JSON.stringify(saved));

  // 1. A wrong key: the sign-in page says so.
  await signIn(page, 'mh_not_a_real_key');
  await page.locator('#signin-error').filter({hasText: 'did not accept'}).waitFor();
  await shot(page, 'signin-wrong-key');
  console.log('ok: a wrong key shows the sign-in error');

  // 2. Alice signs in; her task list is empty.
  await signIn(page, userKey);
  await page.getByRole('heading', {name: 'Tasks'}).waitFor();
  await page.getByText('No tasks here yet').waitFor();
  console.log('ok: signed in, empty task list');

  // 3. A task runs: the list shows it running, then succeeded, without a reload.
  const notes = path.join(filesDir, 'notes.txt');
  const code = [
    "const [tool] = await list_mcp_tools('write file');",
    `await callMCPTool('fs__write_file', {path: ${JSON.stringify(notes)}, content: 'seen by the dashboard test'});`,
    "console.log('wrote the notes with', tool.name);",
    "await fs.writeFile('/workspace/summary.txt', 'one file written');",
    "return {written: true};",
  ].join('\n');
  await script([
    {reply: {toolCalls: [{name: 'execute_code', arguments: {code}}], usage: {inputTokens: 1200, outputTokens: 80}}},
    // The answer waits, so the task is seen running first.
    {reply: {text: 'I wrote the notes file.', usage: {inputTokens: 1500, outputTokens: 12}}, delayMs: 5000},
  ]);
  // Sent under a caller's trace (tracing is off here: the trace is still the task's).
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const posted = await api('POST', '/task', {task: 'Write a notes file for the dashboard test', mode: 'async'}, userKey,
                           {traceparent: `00-${traceId}-00f067aa0ba902b7-01`});
  const row = page.locator(`tr[data-task-id="${posted.taskId}"]`);
  await row.and(page.locator('[data-status="running"]')).waitFor();
  await shot(page, 'tasks-running');
  await row.and(page.locator('[data-status="succeeded"]')).waitFor({timeout: 30000});
  assert.match(await row.innerText(), /2,700 \/ 92/, 'the row shows the tokens of both turns');
  await shot(page, 'tasks');
  console.log('ok: the task went from running to succeeded live');

  // 4. Its detail: the code, highlighted; the tool call with its arguments; the answer.
  await row.getByRole('link').click();
  await page.getByRole('heading', {name: /Turn 1/}).waitFor();
  const codeView = page.locator('pre.code').first();
  await codeView.filter({hasText: 'fs__write_file'}).waitFor();
  assert.ok(await codeView.locator('.tok-keyword').count() > 0, 'the code is highlighted');
  const call = page.locator('table.calls tr', {hasText: 'fs__write_file'});
  await call.waitFor();
  assert.match(await call.innerText(), /notes\.txt/, 'the call shows its arguments');
  assert.match(await call.innerText(), /ok/);
  await page.locator('pre.logs', {hasText: 'wrote the notes with fs__write_file'}).waitFor();
  await page.locator('#result', {hasText: 'I wrote the notes file.'}).waitFor();
  assert.equal(await page.locator('#trace-id').innerText(), traceId, 'the task page names its trace');
  // The workspace file downloads through the API with the key.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', {name: 'summary.txt'}).click(),
  ]);
  const stream = await download.createReadStream();
  let downloaded = '';
  for await (const chunk of stream) downloaded += chunk;
  assert.equal(downloaded, 'one file written');
  await shot(page, 'task-detail');
  console.log('ok: the task detail shows its code, tool call, console, result, files and trace');

  // A task that waits on the LLM is cancelled from its page.
  await script([{reply: {text: 'too late', usage: {inputTokens: 10, outputTokens: 2}}, delayMs: 20000}]);
  const slow = await api('POST', '/task', {task: 'A task to cancel', mode: 'async'});
  await page.goto(`${base}/ui/#/tasks/${slow.taskId}`);
  await page.getByRole('button', {name: 'Cancel task'}).click();
  await page.locator('h1 .badge', {hasText: 'cancelled'}).waitFor();
  assert.equal((await api('GET', `/tasks/${slow.taskId}?transcript=false`)).status, 'cancelled');
  console.log('ok: a running task is cancelled from its page');

  // A call that needs approval: the page shows it as it comes, and Approve lets it go ahead.
  const remember = "const made = await callMCPTool('memory__create_entities', {entities: " +
                   "[{name: 'dashboard', entityType: 'test', observations: ['approved in the browser']}]});\n" +
                   "return made.entities ? made.entities.length : made;";
  await script([
    {reply: {toolCalls: [{name: 'execute_code', arguments: {code: remember}}], usage: {inputTokens: 900, outputTokens: 40}}},
    {reply: {text: 'Remembered.', usage: {inputTokens: 950, outputTokens: 5}}},
  ]);
  const asking = await api('POST', '/task', {task: 'Remember the dashboard test', mode: 'async'});
  await page.goto(`${base}/ui/#/tasks/${asking.taskId}`);
  const approval = page.locator('#approvals .approval', {hasText: 'memory__create_entities'});
  await approval.waitFor({timeout: 30000});
  assert.match(await approval.innerText(), /rule 1 \(memory__create_entities\)/, 'the approval says why it asks');
  assert.match(await approval.innerText(), /approved in the browser/, 'the approval shows the arguments');
  await page.locator('h1 .badge', {hasText: 'awaiting approval'}).waitFor();
  await shot(page, 'task-approval');
  await approval.getByRole('button', {name: 'Approve', exact: true}).click();
  await page.locator('#result', {hasText: 'Remembered.'}).waitFor({timeout: 30000});
  assert.equal(await page.locator('#approvals .approval').count(), 0, 'nothing waits any more');
  const decided = await api('GET', `/tasks/${asking.taskId}?transcript=false`);
  assert.equal(decided.status, 'succeeded');
  console.log('ok: a call that needs approval is approved from the task page');

  // 5. A skill: SKILL.md rendered, a file in the code view.
  await page.getByRole('link', {name: 'Skills'}).click();
  await page.getByRole('link', {name: 'word-count'}).click();
  await page.getByRole('heading', {name: 'Word count'}).waitFor();
  await page.locator('.markdown strong', {hasText: 'a number'}).waitFor();
  await page.getByRole('button', {name: 'index.js'}).click();
  await page.locator('#file-view pre.code', {hasText: 'module.exports'}).waitFor();
  await shot(page, 'skill');
  // Deleting it asks first, then it is gone from the list and from the API.
  page.once('dialog', (dialog) => dialog.accept());
  await page.getByRole('button', {name: 'Delete skill'}).click();
  await page.getByText('No skills yet').waitFor();
  await assert.rejects(api('GET', '/skills/alice/word-count'), /404/);
  console.log('ok: a skill shows its SKILL.md and its code, and is deleted');

  // 6. Tools: search, then one tool's declaration.
  await page.getByRole('link', {name: 'Tools'}).click();
  await page.locator('#tool-search').fill('write file');
  await page.locator('#tool-list a', {hasText: 'fs__write_file'}).first().waitFor();
  await shot(page, 'tools');
  await page.locator('#tool-list a', {hasText: 'fs__write_file'}).first().click();
  await page.locator('pre.code', {hasText: 'declare function fs__write_file'}).waitFor();
  await shot(page, 'tool');
  console.log('ok: tool search and a tool declaration');

  // 6b. Connections: alice connects her own account at the user-scoped OAuth server in a new tab.
  await page.getByRole('link', {name: 'Connections'}).click();
  await page.getByRole('heading', {name: 'Connections', exact: true}).waitFor();
  const notesRow = page.locator('#connection-list tr[data-server="notes"]');
  await notesRow.and(page.locator('[data-state="needs_authorization"]')).waitFor();
  let {seen: opened} = await holdAuthorize(context);
  const [popup] = await Promise.all([context.waitForEvent('page'), notesRow.getByRole('button', {name: 'Connect'}).click()]);
  const link = notesRow.locator('a.authorize');
  await link.waitFor();
  const href = await link.getAttribute('href');
  assert.ok(href.startsWith(`${oauthServer}/authorize?`), `the link goes to the authorization server: ${href}`);
  assert.equal(await link.getAttribute('target'), '_blank');
  assert.equal(await link.getAttribute('rel'), 'noopener noreferrer');
  assert.equal(await opened, href, 'the new tab opened the same link');
  await shot(page, 'connections');
  // The authorization server approves and sends the tab back to the harness's callback.
  await popup.goto(href);
  await popup.getByText('is connected for user alice').waitFor();
  await popup.close();
  // The page looks again while a link is open: connected, without a reload.
  await notesRow.and(page.locator('[data-state="connected"]')).waitFor();
  assert.equal((await api('GET', '/connections?userId=alice')).connections[0].state, 'connected');
  page.once('dialog', (dialog) => dialog.accept());
  await notesRow.getByRole('button', {name: 'Disconnect'}).click();
  await notesRow.and(page.locator('[data-state="needs_authorization"]')).waitFor();
  await notesRow.getByRole('button', {name: 'Connect'}).waitFor();
  const revoked = await (await fetch(`${oauthServer}/stats`)).json();
  assert.ok(revoked.revocations >= 1, `disconnecting revoked the tokens: ${JSON.stringify(revoked)}`);
  console.log('ok: a connection is made in a new tab, shows connected, and is disconnected');

  // 6c. A task's call to the server she has not connected: the task page says so and offers Connect.
  await script([
    {reply: {toolCalls: [{name: 'execute_code', arguments: {code: "return await callMCPTool('notes__whoami', {});"}}],
             usage: {inputTokens: 700, outputTokens: 20}}},
    {reply: {text: 'The notes server needs your account.', usage: {inputTokens: 800, outputTokens: 8}}},
  ]);
  const unconnected = await api('POST', '/task', {task: 'Ask the notes server who I am', mode: 'async'});
  await page.goto(`${base}/ui/#/tasks/${unconnected.taskId}`);
  const needs = page.locator('.needs-authorization', {hasText: 'notes'});
  await needs.waitFor({timeout: 30000});
  assert.match(await needs.innerText(), /needs the user's own account connected: alice/);
  const failedCall = page.locator('table.calls tr', {hasText: 'notes__whoami'});
  assert.match(await failedCall.innerText(), /failed mcp_needs_authorization/, 'the failed call shows its error code');
  await page.locator('#result', {hasText: 'The notes server needs your account.'}).waitFor({timeout: 30000});
  ({seen: opened} = await holdAuthorize(context));
  const [again] = await Promise.all([context.waitForEvent('page'), needs.getByRole('button', {name: 'Connect'}).click()]);
  const taskLink = needs.locator('a.authorize');
  await taskLink.waitFor();
  const taskHref = await taskLink.getAttribute('href');
  assert.ok(taskHref.startsWith(`${oauthServer}/authorize?`), taskHref);
  assert.equal(await taskLink.getAttribute('rel'), 'noopener noreferrer');
  assert.equal(await opened, taskHref, 'the new tab opened the same link');
  await shot(page, 'task-needs-authorization');
  await again.goto(taskHref);
  await again.getByText('is connected for user alice').waitFor();
  await again.close();
  assert.equal((await api('GET', '/connections?userId=alice')).connections[0].state, 'connected');
  console.log('ok: the task page shows a call that needs the user\'s account, and Connect connects it');

  // 7. An admin: every user's tasks, and the pool.
  await page.getByRole('button', {name: 'Sign out'}).click();
  // By keyboard: the key field has the focus, Enter signs in, Tab reaches the pages.
  await page.locator('#key:focus').waitFor();
  await page.keyboard.type(adminKey);
  await page.keyboard.press('Enter');
  await page.locator(`tr[data-task-id="${posted.taskId}"]`).waitFor();
  await page.locator(`tr[data-task-id="${slow.taskId}"]`).waitFor();
  await page.getByRole('link', {name: 'Sandboxes & health'}).focus();
  await page.keyboard.press('Enter');
  await page.locator('#pool dd').first().waitFor();
  assert.match(await page.locator('#pool').innerText(), /ready/);
  // The runtime the sandboxes run under (runc here; runsc would say gVisor).
  assert.match(await page.locator('#runtime').innerText(), /runtime: \S+/);
  await page.locator('figure.chart').first().waitFor();
  // For the picture, three readings of /metrics (one every 5 s) draw the first lines.
  if (shots) await page.waitForTimeout(11000);
  await shot(page, 'system');
  console.log('ok: an admin sees every task and the pool');

  // 8. A server with no key yet runs open: no sign-in, and the page says what that means.
  const open = await context.newPage();
  open.setDefaultTimeout(timeout);
  open.on('pageerror', (e) => problems.push(`page error (open server): ${e.message}`));
  await open.goto(`${openServer}/ui/`);
  await open.getByText('This server runs open').waitFor();
  await open.locator('.who', {hasText: 'open server'}).waitFor();
  await open.getByText('No tasks here yet').waitFor();
  await shot(open, 'open-server');
  // It has no user-scoped OAuth server: its Connections page says there is nothing to connect.
  open.on('console', (m) => {
    if (m.type() === 'error' && !/status of 40[14]/.test(m.text())) problems.push(`console (open server): ${m.text()}`);
  });
  await open.getByRole('link', {name: 'Connections'}).click();
  await open.getByText('Name a user').waitFor();
  await open.locator('#user').fill('alice');
  await open.getByRole('button', {name: 'Show'}).click();
  await open.getByText('Nothing to connect').waitFor();
  assert.match(await open.locator('#connection-list').innerText(), /No user-scoped MCP server with OAuth is configured/);
  assert.equal(await open.locator('#connection-list table').count(), 0);
  await open.close();
  console.log('ok: an open server is said to be open, and its Connections page has nothing to connect');

  // 9. The pages come with their security headers.
  const response = await fetch(`${base}/ui/`);
  assert.match(response.headers.get('content-security-policy') || '', /script-src 'self'/);
  assert.equal(response.headers.get('x-content-type-options'), 'nosniff');

  await browser.close();
  assert.deepEqual(problems, [], 'no script error or CSP violation in the browser');
  console.log('dashboard test passed');
}

const guard = setTimeout(() => {
  console.error('the dashboard test did not finish within 180 s');
  process.exit(3);
}, 180000);
main().then(() => clearTimeout(guard), (e) => {
  console.error(e);
  process.exit(1);
});
