// Reads the Prometheus text format of GET /metrics into samples, and turns
// two readings into rates: what the charts on the system page draw.

// [{name, labels: {k: v}, value}]
export function parseMetrics(text) {
  const out = [];
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels = {};
    for (const l of (m[3] || '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    out.push({name: m[1], labels, value: Number(m[4])});
  }
  return out;
}

export function sum(samples, name, filter = () => true) {
  return samples.filter((s) => s.name === name && filter(s.labels)).reduce((a, s) => a + s.value, 0);
}

// {label value: total} of one metric, summed over its other labels.
export function byLabel(samples, name, label) {
  const out = {};
  for (const s of samples) {
    if (s.name !== name) continue;
    const key = s.labels[label] ?? '';
    out[key] = (out[key] || 0) + s.value;
  }
  return out;
}

// The rates between two readings taken `seconds` apart.
export function rates(before, after, seconds) {
  const delta = (name) => Math.max(0, sum(after, name) - sum(before, name));
  const execCount = delta('harness_sandbox_exec_duration_seconds_count');
  return {
    requestsPerSecond: delta('harness_http_requests_total') / seconds,
    execMs: execCount ? (delta('harness_sandbox_exec_duration_seconds_sum') / execCount) * 1000 : null,
    execsPerSecond: execCount / seconds,
  };
}
