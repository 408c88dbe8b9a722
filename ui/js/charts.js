// Small SVG charts: a line of the last readings and a bar per category.
import {h, svg} from './dom.js';

export function lineChart(values, {label, unit = '', note = '', width = 320, height = 80}) {
  const shown = values.filter((v) => v !== null);
  const max = Math.max(1e-9, ...shown);
  const step = values.length > 1 ? width / (values.length - 1) : width;
  const points = values.map((v, i) => (v === null ? null : `${(i * step).toFixed(1)},${(height - 4 - (v / max) * (height - 8)).toFixed(1)}`))
                     .filter(Boolean);
  const last = shown.length ? shown[shown.length - 1] : null;
  const chart = svg('svg', {viewBox: `0 0 ${width} ${height}`, width, height, role: 'img',
                            'aria-label': `${label}: ${last === null ? 'no data yet' : format(last) + unit}`},
                    svg('rect', {x: 0, y: 0, width, height, class: 'chart-bg'}),
                    points.length > 1 ? svg('polyline', {points: points.join(' '), class: 'chart-line'}) : null);
  return h('figure', {class: 'chart'}, chart,
           h('figcaption', {}, `${label}: `, h('strong', {}, last === null ? '–' : `${format(last)}${unit}`),
             h('span', {class: 'muted'}, shown.length ? ` (max ${format(max)}${unit})` : ''),
             note ? h('br') : null, note ? h('span', {class: 'muted'}, note) : null));
}

export function barChart(counts, {label, width = 320}) {
  const entries = Object.entries(counts).sort((a, b) => b[1] - a[1]);
  const max = Math.max(1, ...entries.map(([, v]) => v));
  const row = 18;
  const height = Math.max(row, entries.length * row);
  const chart = svg('svg', {viewBox: `0 0 ${width} ${height}`, width, height, role: 'img',
                            'aria-label': `${label}: ${entries.map(([k, v]) => `${k} ${v}`).join(', ') || 'none yet'}`},
                    entries.map(([k, v], i) => [
                      svg('rect', {x: 110, y: i * row + 3, height: row - 6, width: Math.max(1, ((width - 160) * v) / max),
                                   class: `bar status-${k}`}),
                      svg('text', {x: 104, y: i * row + row - 5, 'text-anchor': 'end', class: 'bar-label'}, k),
                      svg('text', {x: 114 + ((width - 160) * v) / max, y: i * row + row - 5, class: 'bar-value'}, String(v)),
                    ]));
  return h('figure', {class: 'chart'}, entries.length ? chart : h('p', {class: 'muted'}, 'No tasks have ended yet.'),
           h('figcaption', {}, label));
}

function format(v) {
  if (v >= 100) return Math.round(v).toLocaleString();
  if (v >= 10) return v.toFixed(1);
  return v.toFixed(2);
}
