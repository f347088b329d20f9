// Vital signs over time as small inline SVG charts (blood pressure, heart rate, temperature, weight):
// no chart library, so the clinical pages stay light. Each shows the reference range as a band that
// follows the patient's age (a child's steps where its range changes), values outside the range of the
// age they were measured at in red, dates at both ends, the unit, and a legend. Each chart has a title
// and a description for screen readers, every plotted point carries its value in data attributes (the tests compare them
// with the API's), and a table holds the same numbers for anyone who cannot read a chart.
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { ageInYears, BLOOD_PRESSURE, flagOf, rangesOver, vitalByKey } from '@simrs/records/vital-signs';
import type { RangeSpan } from '@simrs/records/vital-signs';
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

/** A series' reference ranges over the chart's time (none for weight): drawn as a band, so that a glance tells normal from not. */
function spansOf(key: string, birthDate: string | undefined, times: [number, number]): RangeSpan[] {
  const sign = vitalByKey(key);
  return sign ? rangesOver(sign, birthDate, ...times) : [];
}

/** Whether a point lies outside the reference range of the age the patient had when it was measured. */
function outside(key: string, p: Point, birthDate: string | undefined): boolean {
  const sign = vitalByKey(key);
  return sign ? flagOf(sign, p.value, birthDate ? ageInYears(birthDate, p.waktu) : undefined) !== 'N' : false;
}

/** The values labelled on the y axis: the reference range's edges and the extremes, none closer than 12 px. */
function ticksOf(candidates: number[], y: (v: number) => number): number[] {
  const ticks: number[] = [];
  for (const v of [...new Set(candidates)].sort((a, b) => a - b)) if (ticks.every((t) => Math.abs(y(t) - y(v)) >= 12)) ticks.push(v);
  return ticks;
}

interface PanelProps {
  panel: Panel;
  series: Series[];
  times: [number, number];
  birthDate: string | undefined;
}

function ChartPanel({ panel, series, times, birthDate }: PanelProps) {
  const { t } = useTranslation();
  const f = useFormat();
  const id = useId();
  const values = series.flatMap((s) => s.points.map((p) => p.value));
  const bands = series.map((s) => ({ key: s.key, spans: spansOf(s.key, birthDate, times) })).filter((b) => b.spans.length > 0);
  const edges = bands.flatMap((b) => b.spans.flatMap((span) => span.range.normal));
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  // The scale holds the reference ranges too, so that small wobbles inside them look small.
  const [dLo, dHi] = [Math.min(lo, ...edges), Math.max(hi, ...edges)];
  const margin = Math.max((dHi - dLo) * 0.1, 1);
  const y = scale([dLo - margin, dHi + margin], [H - PAD.bottom, PAD.top]);
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
  const dayOf = (time: number) => f.date(new Date(time).toISOString());
  return (
    <figure className="vital-chart" data-panel={panel}>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby={`${id}-t ${id}-d`} data-panel={panel}>
        <title id={`${id}-t`}>{title}</title>
        <desc id={`${id}-d`}>{desc}</desc>
        {bands.map((b) => (
          <ReferenceBand key={b.key} band={b} x={times[1] > times[0] ? x : undefined} y={y} />
        ))}
        {/* The axis labels the ranges of the patient's latest age and the extremes; earlier bands show as steps. */}
        {ticksOf([...bands.flatMap((b) => b.spans.at(-1)!.range.normal), lo, hi], y).map((v) => (
          <g key={v} className="axis">
            <line x1={PAD.left} x2={W - PAD.right} y1={y(v)} y2={y(v)} />
            <text x={PAD.left - 4} y={y(v) + 4} textAnchor="end">
              {f.number(v)}
            </text>
          </g>
        ))}
        <text className="axis" x={PAD.left} y={H - 6}>
          {dayOf(times[0])}
        </text>
        {times[1] > times[0] ? (
          <text className="axis" x={W - PAD.right} y={H - 6} textAnchor="end">
            {dayOf(times[1])}
          </text>
        ) : null}
        {series.map((s) => (
          <SeriesMarks key={s.key} series={s} x={x} y={y} birthDate={birthDate} />
        ))}
      </svg>
      <figcaption>
        {title} ({unit})
        <ChartLegend
          keys={series.map((s) => s.key)}
          ranged={bands.length > 0}
          flagged={series.some((s) => s.points.some((p) => outside(s.key, p, birthDate)))}
        />
      </figcaption>
    </figure>
  );
}

/**
 * A series' reference range as a band, a rectangle per span of the patient's age; `x` undefined: the
 * chart is of one moment, and its one span spans the whole width.
 */
function ReferenceBand({ band, x, y }: { band: { key: string; spans: RangeSpan[] }; x?: (t: number) => number; y: (v: number) => number }) {
  return band.spans.map((span) => {
    const [x0, x1] = x ? [x(span.from), x(span.to)] : [PAD.left, W - PAD.right];
    const [lo, hi] = span.range.normal;
    return (
      <rect
        key={span.from}
        className={`normal normal-${band.key}`}
        x={x0}
        width={x1 - x0}
        y={y(hi)}
        height={y(lo) - y(hi)}
        data-normal={`${lo}-${hi}`}
      />
    );
  });
}

/** One series: its line and a point per value (red outside the reference range), each carrying its value. */
function SeriesMarks({
  series: s,
  x,
  y,
  birthDate,
}: {
  series: Series;
  x: (t: number) => number;
  y: (v: number) => number;
  birthDate: string | undefined;
}) {
  return (
    <g className={`series series-${s.key}`}>
      <polyline fill="none" points={s.points.map((p) => `${x(p.time)},${y(p.value)}`).join(' ')} />
      {s.points.map((p) => (
        <circle
          key={p.entryId}
          className={outside(s.key, p, birthDate) ? 'out-of-range' : undefined}
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
  );
}

/** What the lines, the band and the red points mean (lines named where a chart has two, red points where there are some). */
function ChartLegend({ keys, ranged, flagged }: { keys: string[]; ranged: boolean; flagged: boolean }) {
  const { t } = useTranslation();
  return (
    <span className="chart-legend">
      {keys.length > 1
        ? keys.map((k) => (
            <span key={k} className={`key key-${k}`}>
              {t(`clinic.chart.legend.${k as 'sistolik'}`)}
            </span>
          ))
        : null}
      {ranged ? <span className="key key-normal">{t('clinic.chart.legend.normal')}</span> : null}
      {flagged ? <span className="key key-out">{t('clinic.chart.legend.outside')}</span> : null}
    </span>
  );
}

/** The charts of every panel with data, and the table of the same values. */
/** The patient's vital signs over time; `birthDate` (YYYY-MM-DD) decides the reference ranges (unknown: the adult ones). */
export function VitalsChart({ entries, birthDate }: { entries: readonly VitalEntry[]; birthDate?: string | undefined }) {
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
          <ChartPanel key={p.panel} panel={p.panel} series={p.series} times={times} birthDate={birthDate} />
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
