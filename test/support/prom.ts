// A small reader of the Prometheus text format, enough to find series by name and labels.

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export function parsePrometheus(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[k!] = v!.replace(/\\(.)/g, '$1');
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

/** Metric family names in a scrape (without _bucket/_sum/_count/_total suffix handling). */
export function seriesNames(samples: Sample[]): Set<string> {
  return new Set(samples.map((s) => s.name));
}

/** The sum of the samples named `name` whose labels include `labels`. */
export function sum(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((total, s) => total + s.value, 0);
}

export function has(samples: Sample[], name: string, labels: Record<string, string> = {}): boolean {
  return samples.some((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

export async function scrape(url: string): Promise<Sample[]> {
  const res = await fetch(`${url}/metrics`);
  if (res.status !== 200) throw new Error(`${url}/metrics: ${res.status}`);
  return parsePrometheus(await res.text());
}
