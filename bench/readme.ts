import { readFileSync, writeFileSync } from 'node:fs';
import { scaleTag, type Row } from './util.js';

// `npm run bench -- --readme`: the run's figures as README tables, between two marker comments,
// so the published figures are always one run's, each beside its target and its same-run limit.

export const START = '<!-- bench:results:start -->';
export const END = '<!-- bench:results:end -->';

export interface RunInfo {
  at: string;
  minutes: number;
  node: string;
  cpus: number;
  /** 1-minute load averages sampled at the start and after each section. */
  loads: number[];
  scales: number[];
  sections: string[];
}

const cell = (s: string) => s.replace(/\|/g, '\\|');
const num = (v: number) => (Math.abs(v) >= 1000 ? v.toLocaleString('en-US') : String(v));
const verdict = (rows: Row[]) => {
  const judged = rows.filter((r) => r.pass !== undefined);
  if (!judged.length) return '';
  const missed = judged.filter((r) => !r.pass);
  if (!missed.length) return 'PASS';
  return `**MISS**${judged.some((r) => r.scale) ? ` at ${missed.map((r) => scaleTag(r.scale ?? 0)).join(', ')}` : ''}`;
};

/** The tables for one run: figures by scale side by side, then the scale-free figures. */
export function resultTables(info: RunInfo, rows: Row[]): string {
  const lo = Math.min(...info.loads);
  const hi = Math.max(...info.loads);
  const out: string[] = [
    `Run of ${info.at.slice(0, 16).replace('T', ' ')} UTC (\`npm run bench -- --readme\`), Node ${info.node}, ${info.cpus} CPUs, ` +
      `load average ${lo === hi ? lo : `${lo}–${hi}`} during the run, ${info.minutes.toFixed(0)} min in all; sections ${info.sections.join(', ')}.`,
    '',
  ];
  const scaled = rows.filter((r) => r.scale !== undefined);
  if (scaled.length) {
    const names = [...new Set(scaled.map((r) => r.name))];
    out.push(`| Figure | ${info.scales.map(scaleTag).join(' | ')} | Target | Result |`);
    out.push(`|---|${info.scales.map(() => '---').join('|')}|---|---|`);
    for (const name of names) {
      const mine = scaled.filter((r) => r.name === name);
      const cells = info.scales.map((s) => {
        const r = mine.find((x) => x.scale === s);
        return r ? `${num(r.value)} ${r.unit}` : '';
      });
      out.push(`| ${cell(name)} | ${cells.map(cell).join(' | ')} | ${cell(mine.find((r) => r.target)?.target ?? '')} | ${verdict(mine)} |`);
    }
    out.push('');
  }
  const flat = rows.filter((r) => r.scale === undefined);
  if (flat.length) {
    out.push('| Section | Figure | Value | Target | Result | Same-run limit, notes |');
    out.push('|---|---|---|---|---|---|');
    for (const r of flat)
      out.push(
        `| ${r.section} | ${cell(r.name)} | ${cell(`${num(r.value)} ${r.unit}`)} | ${cell(r.target ?? '')} | ${verdict([r])} | ${cell(r.note ?? '')} |`,
      );
  }
  return out.join('\n');
}

/** Replaces what lies between the markers in `file` with this run's tables. */
export function writeReadme(file: string, info: RunInfo, rows: Row[]): void {
  const text = readFileSync(file, 'utf8');
  const a = text.indexOf(START);
  const b = text.indexOf(END);
  if (a < 0 || b < a) throw new Error(`${file} has no ${START} … ${END} markers to write the figures between`);
  writeFileSync(file, `${text.slice(0, a + START.length)}\n\n${resultTables(info, rows)}\n\n${text.slice(b)}`);
}
