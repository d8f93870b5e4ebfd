// the parser ships without types: what the metrics tests read of its output
declare module 'parse-prometheus-text-format' {
  export default function parsePrometheusTextFormat(text: string): unknown[];
}
