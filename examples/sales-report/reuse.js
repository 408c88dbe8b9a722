// Block 2 (any later task or session of the same user): the saved skill does
// the work again, on this year's second half only.
const summarise = require('/skills/sales-summary');
const rows = await callMCPTool('db__query', { sql: "SELECT customer, customer_email, customer_phone, region, amount FROM sales WHERE sold_on >= DATE '2026-07-01'" });
const { rows: count, total, top } = summarise(rows);
return { count, total, top: top.name };
