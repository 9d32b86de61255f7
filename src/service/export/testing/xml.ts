/**
 * A small, strict XML reader for tests: elements, attributes, text, the five predefined entities and
 * numeric references; skips the declaration, DOCTYPE and comments. Throws on anything malformed
 * (unbalanced tags, bare '&' or '<', duplicate attributes), which is what the FCPXML check relies on.
 */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(raw: string, where: number): string {
  if (raw.includes('<')) throw new Error(`bare '<' near ${where}`);
  return raw.replace(/&([^;]*);|&/g, (match, name: string | undefined) => {
    if (name === undefined) throw new Error(`bare '&' near ${where}`);
    if (name.startsWith('#x')) return String.fromCodePoint(parseInt(name.slice(2), 16));
    if (name.startsWith('#')) return String.fromCodePoint(parseInt(name.slice(1), 10));
    const value = ENTITIES[name];
    if (value === undefined) throw new Error(`unknown entity &${name}; near ${where}`);
    return value;
  });
}

export function parseXml(source: string): XmlElement {
  let at = 0;
  const skipPast = (end: string) => {
    const found = source.indexOf(end, at);
    if (found < 0) throw new Error(`unterminated markup at ${at}`);
    at = found + end.length;
  };
  const skipMisc = () => {
    for (;;) {
      const space = /^\s+/.exec(source.slice(at));
      if (space) at += space[0].length;
      else if (source.startsWith('<?', at)) skipPast('?>');
      else if (source.startsWith('<!--', at)) skipPast('-->');
      else if (source.startsWith('<!DOCTYPE', at)) skipPast('>');
      else return;
    }
  };
  const element = (): XmlElement => {
    const open = /^<([A-Za-z_][\w.-]*)/.exec(source.slice(at));
    if (!open) throw new Error(`expected an element at ${at}`);
    const node: XmlElement = { name: open[1]!, attributes: {}, children: [], text: '' };
    at += open[0].length;
    for (;;) {
      const attr = /^\s+([A-Za-z_][\w.:-]*)="([^"]*)"/.exec(source.slice(at));
      if (!attr) break;
      if (attr[1]! in node.attributes) throw new Error(`duplicate attribute ${attr[1]} at ${at}`);
      node.attributes[attr[1]!] = decode(attr[2]!, at);
      at += attr[0].length;
    }
    const end = /^\s*(\/?)>/.exec(source.slice(at));
    if (!end) throw new Error(`malformed tag <${node.name}> at ${at}`);
    at += end[0].length;
    if (end[1] === '/') return node;
    for (;;) {
      const lt = source.indexOf('<', at);
      if (lt < 0) throw new Error(`unclosed <${node.name}>`);
      node.text += decode(source.slice(at, lt), at);
      at = lt;
      if (source.startsWith('<!--', at)) {
        skipPast('-->');
      } else if (source.startsWith('</', at)) {
        const close = /^<\/([A-Za-z_][\w.-]*)\s*>/.exec(source.slice(at));
        if (!close || close[1] !== node.name) throw new Error(`expected </${node.name}> at ${at}`);
        at += close[0].length;
        return node;
      } else {
        node.children.push(element());
      }
    }
  };
  skipMisc();
  const root = element();
  skipMisc();
  if (at !== source.length) throw new Error(`content after the root element at ${at}`);
  return root;
}

/** Every element below (and including) `node` with the given name, in document order. */
export function findAll(node: XmlElement, name: string): XmlElement[] {
  const found: XmlElement[] = node.name === name ? [node] : [];
  for (const child of node.children) found.push(...findAll(child, name));
  return found;
}
