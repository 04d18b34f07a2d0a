/**
 * A strict reader of the Prometheus text exposition format (version 0.0.4): every line must be
 * a comment (`# HELP`, `# TYPE`, or another comment), blank, or a sample
 * `name{label="value",...} value [timestamp]`, and every sample must belong to a family whose
 * TYPE came before it. Throws on the first line that is not; answers the samples.
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const LABEL_NAME = "[a-zA-Z_][a-zA-Z0-9_]*";
const LABEL_VALUE = '"(?:[^"\\\\\\n]|\\\\[\\\\"n])*"';
const LABEL = `${LABEL_NAME}=${LABEL_VALUE}`;
// Go's ParseFloat, as Prometheus reads a value: decimals, exponents, Inf and NaN in any case.
const VALUE = "[-+]?(?:\\d+(?:\\.\\d*)?|\\.\\d+)(?:[eE][-+]?\\d+)?|[-+]?[Ii][Nn][Ff]|[Nn][Aa][Nn]";
const SAMPLE = new RegExp(`^(${NAME})(?:\\{((?:${LABEL}(?:,${LABEL})*)?,?)\\})? (${VALUE})(?: -?\\d+)?$`);
const HELP = new RegExp(`^# HELP (${NAME}) .*$|^# HELP (${NAME})$`);
const TYPE = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`);
const LABEL_PAIR = new RegExp(`(${LABEL_NAME})=(${LABEL_VALUE})`, "g");

const SUFFIXES: Record<string, string[]> = { histogram: ["_bucket", "_sum", "_count"], summary: ["_sum", "_count", ""], counter: ["", "_total"] };

function numberOf(text: string): number {
  const lower = text.toLowerCase();
  if (lower === "nan") return NaN;
  if (lower.endsWith("inf")) return lower.startsWith("-") ? -Infinity : Infinity;
  return Number(text);
}

export function parsePrometheus(text: string): Sample[] {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  text.split("\n").forEach((line, i) => {
    if (line === "") return;
    const where = `line ${i + 1}: ${JSON.stringify(line)}`;
    if (line.startsWith("#")) {
      const type = TYPE.exec(line);
      if (type) {
        if (types.has(type[1]!)) throw new Error(`${where}: a second TYPE for ${type[1]}`);
        types.set(type[1]!, type[2]!);
        return;
      }
      if (line.startsWith("# HELP") && !HELP.test(line)) throw new Error(`${where}: not a valid HELP line`);
      if (line.startsWith("# TYPE")) throw new Error(`${where}: not a valid TYPE line`);
      return;
    }
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`${where}: not a valid sample line`);
    const name = match[1]!;
    const family = [...types.entries()].find(([base, type]) => (SUFFIXES[type] ?? [""]).some((suffix) => base + suffix === name));
    if (!family) throw new Error(`${where}: no TYPE line before this sample`);
    const labels: Record<string, string> = {};
    for (const [, label, value] of (match[2] ?? "").matchAll(LABEL_PAIR)) labels[label!] = JSON.parse(value!) as string;
    if (family[1] === "histogram" && name.endsWith("_bucket") && labels.le === undefined) throw new Error(`${where}: a bucket without le`);
    samples.push({ name, labels, value: numberOf(match[3]!) });
  });
  return samples;
}

/** The value of the one sample with exactly these labels (those given; others may exist), or 0 when there is none yet. */
export function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length > 1) throw new Error(`${name} ${JSON.stringify(labels)} matches ${found.length} samples`);
  return found[0]?.value ?? 0;
}
