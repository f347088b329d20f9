// Vital signs over time as small inline SVG charts (blood pressure, heart rate, temperature, weight):
// no chart library, so the clinical pages stay light. Each chart has a title and a description for
// screen readers, every plotted point carries its value in data attributes (the tests compare them
// with the API's), and a table holds the same numbers for anyone who cannot read a chart.
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { BLOOD_PRESSURE, vitalByKey } from '@simrs/records/vital-signs';
import { useFormat } from '../lib/format.ts';

export interface VitalEntry {
  id: string;
  kode: string | null;
  isi: Record<string, unknown>;
  flag: string | null;
  waktu: string;
}

interface Point {
  entryId: string;
  time: number;
  waktu: string;
  value: number;
}

interface Series {
  key: string;
  points: Point[];
}

export type Panel = 'bp' | 'nadi' | 'suhu' | 'beratBadan';
export const PANELS: Panel[] = ['bp', 'nadi', 'suhu', 'beratBadan'];

const loincOf = (key: string) => vitalByKey(key)?.loinc;

/** The series a panel plots, oldest first. */
export function seriesOf(panel: Panel, entries: readonly VitalEntry[]): Series[] {
  const sorted = [...entries].sort((a, b) => Date.parse(a.waktu) - Date.parse(b.waktu));
  const pick = (kode: string | undefined, field: string, key: string): Series => ({
    key,
    points: sorted
      .filter((e) => e.kode === kode && typeof e.isi[field] === 'number')
      .map((e) => ({ entryId: e.id, time: Date.parse(e.waktu), waktu: e.waktu, value: e.isi[field] as number })),
  });
  if (panel === 'bp') return [pick(BLOOD_PRESSURE.loinc, 'sistolik', 'sistolik'), pick(BLOOD_PRESSURE.loinc, 'diastolik', 'diastolik')];
  return [pick(loincOf(panel), 'value', panel)];
}

const W = 320;
const H = 150;
const PAD = { left: 40, right: 12, top: 12, bottom: 26 };

function scale(domain: [number, number], range: [number, number]) {
  const [d0, d1] = domain[0] === domain[1] ? [domain[0] - 1, domain[1] + 1] : domain;
  return (v: number) => range[0] + ((v - d0) / (d1 - d0)) * (range[1] - range[0]);
}

function ChartPanel({ panel, series, times }: { panel: Panel; series: Series[]; times: [number, number] }) {
  const { t } = useTranslation();
  const f = useFormat();
  const id = useId();
  const values = series.flatMap((s) => s.points.map((p) => p.value));
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const margin = Math.max((hi - lo) * 0.15, 1);
  const y = scale([lo - margin, hi + margin], [H - PAD.bottom, PAD.top]);
  const x = scale(times, [PAD.left, W - PAD.right]);
  const unit = t(`clinic.chart.unit.${panel}`);
  const title = t(`clinic.chart.title.${panel}`);
  const last = series.map((s) => s.points.at(-1)).filter((p): p is Point => Boolean(p));
  const desc = t('clinic.chart.desc', {
    count: values.length,
    min: f.number(lo),
    max: f.number(hi),
    unit,
    latest: last.map((p) => f.number(p.value)).join('/'),
  });
  return (
    <figure className="vital-chart" data-panel={panel}>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby={`${id}-t ${id}-d`} data-panel={panel}>
        <title id={`${id}-t`}>{title}</title>
        <desc id={`${id}-d`}>{desc}</desc>
        {[lo, hi].map((v) => (
          <g key={v} className="axis">
            <line x1={PAD.left} x2={W - PAD.right} y1={y(v)} y2={y(v)} />
            <text x={PAD.left - 4} y={y(v) + 4} textAnchor="end">
              {f.number(v)}
            </text>
          </g>
        ))}
        <text className="axis" x={PAD.left} y={H - 6}>
          {f.dateTime(new Date(times[0]))}
        </text>
        {series.map((s) => (
          <g key={s.key} className={`series series-${s.key}`}>
            <polyline fill="none" points={s.points.map((p) => `${x(p.time)},${y(p.value)}`).join(' ')} />
            {s.points.map((p) => (
              <circle
                key={p.entryId}
                cx={x(p.time)}
                cy={y(p.value)}
                r={4}
                data-key={s.key}
                data-value={p.value}
                data-time={p.waktu}
                data-entry={p.entryId}
              />
            ))}
          </g>
        ))}
      </svg>
      <figcaption>
        {title} ({unit})
      </figcaption>
    </figure>
  );
}

/** The charts of every panel with data, and the table of the same values. */
export function VitalsChart({ entries }: { entries: readonly VitalEntry[] }) {
  const { t } = useTranslation();
  const panels = PANELS.map((panel) => ({ panel, series: seriesOf(panel, entries) })).filter((p) =>
    p.series.some((s) => s.points.length > 0),
  );
  if (panels.length === 0) return <p id="vitals-chart-empty">{t('clinic.chart.empty')}</p>;
  const all = entries.map((e) => Date.parse(e.waktu));
  const times: [number, number] = [Math.min(...all), Math.max(...all)];
  return (
    <div id="vitals-chart">
      <div className="vital-charts">
        {panels.map((p) => (
          <ChartPanel key={p.panel} panel={p.panel} series={p.series} times={times} />
        ))}
      </div>
      <VitalsTable entries={entries} />
    </div>
  );
}

function VitalsTable({ entries }: { entries: readonly VitalEntry[] }) {
  const { t } = useTranslation();
  const f = useFormat();
  const byTime = new Map<string, Partial<Record<Panel, string>>>();
  for (const panel of PANELS) {
    for (const s of seriesOf(panel, entries)) {
      for (const p of s.points) {
        const row = byTime.get(p.waktu) ?? {};
        row[panel] = row[panel] ? `${row[panel]}/${f.number(p.value)}` : f.number(p.value);
        byTime.set(p.waktu, row);
      }
    }
  }
  const rows = [...byTime.entries()].sort(([a], [b]) => Date.parse(b) - Date.parse(a));
  return (
    <details className="vital-table">
      <summary>{t('clinic.chart.table')}</summary>
      <table className="responsive">
        <caption>{t('clinic.chart.table')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('clinic.chart.when')}</th>
            {PANELS.map((p) => (
              <th key={p} scope="col">
                {t(`clinic.chart.title.${p}`)} ({t(`clinic.chart.unit.${p}`)})
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map(([when, row]) => (
            <tr key={when}>
              <th scope="row">{f.dateTime(when)}</th>
              {PANELS.map((p) => (
                <td key={p} data-label={`${t(`clinic.chart.title.${p}`)} (${t(`clinic.chart.unit.${p}`)})`}>
                  {row[p] ?? '—'}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}
