// Renders charts/simrs with the real `helm template` (helm 4, unpacked from a devDependency by
// k8s-tools.ts), merges values the way Helm does, and checks rendered objects against the
// Kubernetes schemas of kubernetes-models, including fields the schemas do not know (the generated
// validators accept unknown properties, so those are found by walking the TypeScript declarations
// that kubernetes-models generates from the same OpenAPI document).
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { parse, parseAllDocuments } from 'yaml';
import { helmBinary } from './k8s-tools.ts';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const chartDir = path.join(repoRoot, 'charts/simrs');

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Values = { [key: string]: Json };
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: unknown;
}

/** The helm binary every chart test runs. */
export const helm = helmBinary();

/** Names of settings that hold secrets or credentials: the chart passes them only from Secrets. */
export const SECRET_SETTING = /(^|_)(SECRET|PASSWORD|TOKEN)$|^(DATABASE|MIGRATION_DATABASE|REDIS|SMTP)_URL$/;

/** The Kubernetes version rendered for, the same with every helm release (Chart.yaml needs >= 1.30). */
export const kubeVersion = 'v1.31.0';

/** `helm template <release> charts/simrs -n <namespace> <args>`, parsed into objects. */
export function render(release: string, namespace: string, args: string[] = []): K8sObject[] {
  const argv = ['template', release, chartDir, '--namespace', namespace, '--kube-version', kubeVersion, ...args];
  const out = execFileSync(helm, argv, { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const docs = parseAllDocuments(out);
  const objects: K8sObject[] = [];
  for (const doc of docs) {
    if (doc.errors.length) throw new Error(`rendered YAML does not parse: ${doc.errors[0]?.message}`);
    const value = doc.toJS() as K8sObject | null;
    if (value) objects.push(value);
  }
  return objects;
}

/** Runs helm in the repository root; never throws for a non-zero exit. */
export function runHelm(args: string[]): { status: number | null; output: string } {
  const result = spawnSync(helm, args, { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.error) throw result.error;
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

export function readYaml(file: string): Values {
  return (parse(readFileSync(path.resolve(repoRoot, file), 'utf8')) ?? {}) as Values;
}

const isMap = (v: unknown): v is Values => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Helm's coalescing: maps merge key by key, anything else replaces, null deletes. */
export function mergeValues(base: Values, override: Values): Values {
  const out: Values = structuredClone(base);
  for (const [key, value] of Object.entries(override)) {
    if (value === null) delete out[key];
    else if (isMap(value) && isMap(out[key])) out[key] = mergeValues(out[key], value);
    else out[key] = structuredClone(value);
  }
  return out;
}

/** Splits a --set key on unescaped dots: `a.b\.c` is ['a', 'b.c']. */
export function setPath(key: string): string[] {
  return key.split(/(?<!\\)\./).map((part) => part.replace(/\\\./g, '.'));
}

/**
 * Applies `--set key=value` (or --set-string) with Helm's typing for scalars, {a,b} lists and
 * `list[0].key` indexes (a list set this way replaces the list from the values files, as in Helm).
 */
export function applySet(values: Values, assignment: string, asString = false): Values {
  const eq = assignment.indexOf('=');
  const raw = assignment.slice(eq + 1);
  const scalar = (s: string): Json =>
    asString ? s : s === 'true' ? true : s === 'false' ? false : s === 'null' ? null : /^(-?[1-9]\d*|0)$/.test(s) ? Number(s) : s;
  let patch: Json = !asString && /^\{.*\}$/.test(raw) ? raw.slice(1, -1).split(',').map(scalar) : scalar(raw);
  for (const segment of setPath(assignment.slice(0, eq)).reverse()) {
    const [, key, indexes] = /^(.*?)((?:\[\d+\])*)$/.exec(segment)!;
    for (const [, index] of [...indexes!.matchAll(/\[(\d+)\]/g)].reverse()) {
      const list: Json[] = Array.from({ length: Number(index) + 1 }, () => null);
      list[Number(index)] = patch;
      patch = list;
    }
    patch = { [key!]: patch };
  }
  return mergeValues(values, patch as Values);
}

// ---- README commands -----------------------------------------------------------------------------

/** Splits a shell command line into words (quotes and backslashes as in sh; no expansions). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && /["\\$`]/.test(line[i + 1] ?? '')) word += line[++i]!;
      else word += c;
    } else if (c === "'" || c === '"') [quote, word] = [c, word ?? ''];
    else if (c === '\\') word = (word ?? '') + (line[++i] ?? '');
    else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else if (c === '#' && word === undefined) break;
    else word = (word ?? '') + c;
  }
  if (word !== undefined) words.push(word);
  return words;
}

export interface InstallCommand {
  text: string;
  release: string;
  chart: string;
  namespace: string;
  files: string[];
  sets: Array<{ flag: '--set' | '--set-string'; assignment: string }>;
}

/** The `helm install` / `helm upgrade --install` commands in a Markdown file's shell blocks. */
export function readmeInstallCommands(file: string): InstallCommand[] {
  const readme = readFileSync(file, 'utf8');
  const blocks = [...readme.matchAll(/```(?:sh|bash|shell|console)\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const lines = blocks.flatMap((b) => b.replace(/\\\n/g, ' ').split('\n'));
  return lines
    .map((line) => line.replace(/^\$\s*/, '').trim())
    .filter((line) => /^helm (install|upgrade)\b/.test(line))
    .map((text) => {
      const words = shellWords(text).slice(2);
      const command: InstallCommand = { text, release: '', chart: '', namespace: 'default', files: [], sets: [] };
      const positional: string[] = [];
      while (words.length) {
        let word = words.shift()!;
        if (/^--[\w-]+=/.test(word)) {
          words.unshift(word.slice(word.indexOf('=') + 1));
          word = word.slice(0, word.indexOf('='));
        }
        if (!word.startsWith('-')) positional.push(word);
        else if (word === '-n' || word === '--namespace') command.namespace = words.shift()!;
        else if (word === '-f' || word === '--values') command.files.push(words.shift()!);
        else if (word === '--set' || word === '--set-string') command.sets.push({ flag: word, assignment: words.shift()! });
        else if (word === '--timeout') words.shift();
        else if (!['--install', '--create-namespace', '--wait', '--atomic'].includes(word))
          throw new Error(`README: unknown helm flag ${word} in: ${text}`);
      }
      [command.release = '', command.chart = ''] = positional;
      return command;
    });
}

// ---- Kubernetes schemas --------------------------------------------------------------------------

type ModelClass = new (data: unknown) => { validate(): void };

/** Throws when kubernetes-models has no model for the object or the object fails its schema. */
export async function validateModel(object: K8sObject): Promise<void> {
  const module = (await import(`kubernetes-models/${object.apiVersion}/${object.kind}`)) as Record<string, ModelClass>;
  const Model = module[object.kind];
  if (!Model) throw new Error(`kubernetes-models has no ${object.apiVersion} ${object.kind}`);
  new Model(object).validate();
}

/** Finds properties that the Kubernetes types of kubernetes-models do not declare. */
export class UnknownFieldChecker {
  private readonly checker: ts.TypeChecker;
  private readonly types = new Map<string, ts.Type>();

  constructor(kinds: Array<{ apiVersion: string; kind: string }>) {
    const unique = [...new Map(kinds.map((k) => [`${k.apiVersion}/${k.kind}`, k])).values()];
    const file = path.join(repoRoot, 'test/__kubernetes_types__.ts');
    const source = unique
      .map((k, i) => `import type { I${k.kind} as T${i} } from 'kubernetes-models/${k.apiVersion}/${k.kind}';\nexport type E${i} = T${i};`)
      .join('\n');
    const options: ts.CompilerOptions = {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es5.d.ts'],
      types: [],
      noEmit: true,
      skipLibCheck: true,
    };
    const host = ts.createCompilerHost(options);
    const getSourceFile = host.getSourceFile.bind(host);
    const fileExists = host.fileExists.bind(host);
    host.getSourceFile = (name, language, ...rest) =>
      name === file ? ts.createSourceFile(name, source, language) : getSourceFile(name, language, ...rest);
    host.fileExists = (name) => name === file || fileExists(name);
    const program = ts.createProgram([file], options, host);
    this.checker = program.getTypeChecker();
    const moduleSymbol = this.checker.getSymbolAtLocation(program.getSourceFile(file)!)!;
    const exported = this.checker.getExportsOfModule(moduleSymbol);
    unique.forEach((k, i) => {
      const symbol = exported.find((s) => s.name === `E${i}`);
      if (!symbol) throw new Error(`no type for ${k.apiVersion} ${k.kind}`);
      this.types.set(`${k.apiVersion}/${k.kind}`, this.checker.getDeclaredTypeOfSymbol(symbol));
    });
  }

  unknownFields(object: K8sObject): string[] {
    const type = this.types.get(`${object.apiVersion}/${object.kind}`);
    if (!type) throw new Error(`checker built without ${object.apiVersion} ${object.kind}`);
    const found: string[] = [];
    this.walk(object, type, '', found);
    return found;
  }

  private walk(value: unknown, declared: ts.Type, at: string, found: string[]): void {
    if (typeof value !== 'object' || value === null) return;
    const type = this.checker.getNonNullableType(declared);
    const members = type.isUnion() ? type.types : [type];
    if (Array.isArray(value)) {
      const array = members.find((t) => this.checker.isArrayType(t)) as ts.TypeReference | undefined;
      const element = array && this.checker.getTypeArguments(array)[0];
      if (!element) found.push(`${at} (not a list in the schema)`);
      else value.forEach((item, i) => this.walk(item, element, `${at}[${i}]`, found));
      return;
    }
    const objects = members.filter((t) => t.flags & ts.TypeFlags.Object && !this.checker.isArrayType(t));
    if (objects.length === 0) {
      if (!members.some((t) => t.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown))) found.push(`${at} (not an object in the schema)`);
      return;
    }
    for (const [key, child] of Object.entries(value)) {
      let childType: ts.Type | undefined;
      for (const t of objects) {
        const property = t.getProperty(key);
        childType = property ? this.checker.getTypeOfSymbol(property) : this.checker.getIndexInfoOfType(t, ts.IndexKind.String)?.type;
        if (childType) break;
      }
      if (childType) this.walk(child, childType, `${at}.${key}`, found);
      else found.push(`${at}.${key}`);
    }
  }
}
