// Block 1: find the query tool, read its schema, pull every sale, aggregate in
// code, keep the aggregation as a skill, remember the top customer, and
// return only the summary. The 1,000 rows never leave the sandbox.
const query = (await list_mcp_tools('sql query')).find((t) => t.name.endsWith('__query'));
const details = await get_mcp_tool_details(query.name);
const rows = await callMCPTool(query.name, { sql: 'SELECT customer, customer_email, customer_phone, region, amount FROM sales' });

const summarise = `module.exports = function summarise(rows) {
  const byRegion = {}, byCustomer = {};
  let total = 0;
  for (const r of rows) {
    const amount = Number(r.amount);
    total += amount;
    byRegion[r.region] = (byRegion[r.region] || 0) + amount;
    const c = byCustomer[r.customer_email] || (byCustomer[r.customer_email] = { name: r.customer, email: r.customer_email, phone: r.customer_phone, total: 0 });
    c.total += amount;
  }
  const round = (x) => Math.round(x * 100) / 100;
  const top = Object.values(byCustomer).sort((a, b) => b.total - a.total)[0];
  return {
    rows: rows.length,
    total: round(total),
    byRegion: Object.fromEntries(Object.entries(byRegion).sort().map(([k, v]) => [k, round(v)])),
    top: { ...top, total: round(top.total) },
  };
};
`;
await fs.mkdir('/skills/sales-summary', { recursive: true });
await fs.writeFile('/skills/sales-summary/index.js', summarise);
await fs.writeFile('/skills/sales-summary/SKILL.md',
  '---\nname: sales-summary\ndescription: Totals sales rows (customer, customer_email, customer_phone, region, amount) by region and finds the top customer.\n---\nrequire("/skills/sales-summary")(rows) -> {rows, total, byRegion, top}\n');
const summary = require('/skills/sales-summary')(rows);

await callMCPTool('memory__create_entities', { entities: [{
  name: summary.top.name, entityType: 'top_customer',
  observations: [`email ${summary.top.email}`, `phone ${summary.top.phone}`, `bought ${summary.top.total} in total`],
}] });
return { tool: query.name, schema: details.inputSchema, ...summary };
