/**
 * The neighborhood drawing: nodes and edges in SVG, laid out by a small force simulation run
 * to rest before each draw (no animation, so nothing moves under the pointer). Clicking a node
 * (or Enter on it: every node is a focusable button) expands its neighborhood; the caller
 * decides what expanding fetches. Kept behind this small interface so a graph library
 * (Cytoscape.js) can replace the drawing without touching the pages (docs/dashboard.md).
 */
export interface GNode {
  uid: string;
  label: string;
  node_type: string;
  layer: string;
}
export interface GEdge {
  uid: string;
  from: string;
  to: string;
  edge_type: string;
}
export interface GraphView {
  el: HTMLElement;
  add(nodes: GNode[], edges: GEdge[]): void;
  has(uid: string): boolean;
  size(): { nodes: number; edges: number };
}

const SVG = 'http://www.w3.org/2000/svg';
const W = 800;
const H = 520;
const LAYER_CLASS = (layer: string) => `layer-${layer.replace(/[^a-z]/gi, '')}`;

interface P {
  n: GNode;
  x: number;
  y: number;
  vx: number;
  vy: number;
  fixed: boolean;
  expanded: boolean;
}

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

/** Deterministic spreading for new nodes: around their first neighbor, else around the center. */
function seed(i: number, cx: number, cy: number, r: number): [number, number] {
  const a = i * 2.399963; // the golden angle
  return [cx + Math.cos(a) * r, cy + Math.sin(a) * r];
}

export function layout(points: P[], edges: GEdge[], iterations = 300): void {
  const at = new Map(points.map((p) => [p.n.uid, p]));
  for (let it = 0; it < iterations; it++) {
    const cool = 1 - it / iterations;
    for (let i = 0; i < points.length; i++)
      for (let j = i + 1; j < points.length; j++) {
        const a = points[i];
        const b = points[j];
        let dx = a.x - b.x;
        let dy = a.y - b.y;
        let d2 = dx * dx + dy * dy;
        if (d2 < 0.01) {
          dx = (i % 7) - 3 || 1;
          dy = (j % 5) - 2 || 1;
          d2 = dx * dx + dy * dy;
        }
        const f = 4000 / d2;
        const d = Math.sqrt(d2);
        a.vx += (dx / d) * f;
        a.vy += (dy / d) * f;
        b.vx -= (dx / d) * f;
        b.vy -= (dy / d) * f;
      }
    for (const e of edges) {
      const a = at.get(e.from);
      const b = at.get(e.to);
      if (!a || !b || a === b) continue;
      const dx = b.x - a.x;
      const dy = b.y - a.y;
      const d = Math.sqrt(dx * dx + dy * dy) || 1;
      const f = (d - 110) * 0.05;
      a.vx += (dx / d) * f;
      a.vy += (dy / d) * f;
      b.vx -= (dx / d) * f;
      b.vy -= (dy / d) * f;
    }
    for (const p of points) {
      p.vx += (W / 2 - p.x) * 0.005;
      p.vy += (H / 2 - p.y) * 0.005;
      if (!p.fixed) {
        const step = Math.min(25 * cool + 1, Math.hypot(p.vx, p.vy));
        const len = Math.hypot(p.vx, p.vy) || 1;
        p.x = Math.max(40, Math.min(W - 40, p.x + (p.vx / len) * step));
        p.y = Math.max(30, Math.min(H - 30, p.y + (p.vy / len) * step));
      }
      p.vx = 0;
      p.vy = 0;
    }
  }
}

export function graphView(opts: { start: string; onExpand(uid: string): Promise<void>; onSelect(node: GNode): void }): GraphView {
  const points = new Map<string, P>();
  const edges = new Map<string, GEdge>();
  const el = document.createElement('div');
  el.className = 'graph';
  const canvas = svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'group', 'aria-label': 'Neighborhood graph: activate a node to expand it' });
  el.appendChild(canvas);

  const draw = () => {
    canvas.replaceChildren();
    const defs = svg('defs', {});
    const marker = svg('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 22, refY: 5, markerWidth: 6, markerHeight: 6, orient: 'auto-start-reverse' });
    marker.appendChild(svg('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: 'arrow' }));
    defs.appendChild(marker);
    canvas.appendChild(defs);
    for (const e of edges.values()) {
      const a = points.get(e.from);
      const b = points.get(e.to);
      if (!a || !b) continue;
      const g = svg('g', { class: 'edge' });
      const line = svg('line', { x1: a.x, y1: a.y, x2: b.x, y2: b.y, 'marker-end': 'url(#arrow)' });
      const title = svg('title', {});
      title.textContent = `${a.n.label} —${e.edge_type}→ ${b.n.label}`;
      line.appendChild(title);
      const text = svg('text', { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 - 3, class: 'edge-label' });
      text.textContent = e.edge_type;
      g.append(line, text);
      canvas.appendChild(g);
    }
    for (const p of points.values()) {
      const g = svg('g', {
        class: `node ${LAYER_CLASS(p.n.layer)}${p.n.uid === opts.start ? ' start' : ''}${p.expanded ? ' expanded' : ''}`,
        transform: `translate(${p.x.toFixed(1)},${p.y.toFixed(1)})`,
        tabindex: 0,
        role: 'button',
        'data-uid': p.n.uid,
        'aria-label': `${p.n.label} (${p.n.node_type})${p.expanded ? ', expanded' : ', activate to expand'}`,
      });
      g.appendChild(svg('circle', { r: 14 }));
      const text = svg('text', { y: 28, 'text-anchor': 'middle' });
      text.textContent = p.n.label.length > 28 ? p.n.label.slice(0, 27) + '…' : p.n.label;
      g.appendChild(text);
      const activate = () => {
        opts.onSelect(p.n);
        if (p.expanded) return;
        p.expanded = true;
        g.classList.add('busy');
        void opts.onExpand(p.n.uid).finally(() => {
          draw();
          (canvas.querySelector(`[data-uid="${CSS.escape(p.n.uid)}"]`) as SVGGElement | null)?.focus();
        });
      };
      g.addEventListener('click', activate);
      g.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          activate();
        }
      });
      canvas.appendChild(g);
    }
  };

  return {
    el,
    has: (uid) => points.has(uid),
    size: () => ({ nodes: points.size, edges: edges.size }),
    add(nodes, newEdges) {
      for (const e of newEdges) edges.set(e.uid, e);
      let i = points.size;
      for (const n of nodes) {
        if (points.has(n.uid)) continue;
        const neighbor = [...edges.values()].map((e) => (e.from === n.uid ? e.to : e.to === n.uid ? e.from : null)).find((u) => u && points.has(u));
        const around = neighbor ? points.get(neighbor)! : null;
        const [x, y] = seed(i++, around?.x ?? W / 2, around?.y ?? H / 2, around ? 60 : i === 1 ? 0 : 120);
        points.set(n.uid, { n, x, y, vx: 0, vy: 0, fixed: false, expanded: n.uid === opts.start });
      }
      layout([...points.values()], [...edges.values()]);
      draw();
    },
  };
}
