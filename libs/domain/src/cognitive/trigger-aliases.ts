import { isPlainObject, triggerAliasesOf } from '../catalogue';
import { Body, present } from '../validation';

/**
 * Takes the catalogue's `rename` trigger aliases of one action as their fields (REFERENCE
 * §2.8), before the action runs: the field's own checks (host type, liveness) then apply as
 * if the client had used its name. When both are sent the field wins and the alias is left
 * untouched, so the call reports it as unused. Returns a new body; the input is not changed.
 */
export function applyTriggerAliases(path: string, action: string, body: Body): Body {
  let out = body;
  for (const row of triggerAliasesOf(path, action)) {
    if (row.resolution !== 'rename') continue;
    if (row.alias.startsWith('props.')) {
      const key = row.alias.slice('props.'.length);
      const props = out.props;
      if (!isPlainObject(props) || !Object.prototype.hasOwnProperty.call(props, key)) continue;
      const { [key]: value, ...rest } = props;
      out = { ...out, props: rest };
      // the catalogue name wins: a value inside props only fills an absent field
      if (!present(out, row.field)) out[row.field] = value;
      continue;
    }
    if (present(out, row.field) || !Object.prototype.hasOwnProperty.call(out, row.alias)) continue;
    const { [row.alias]: value, ...rest } = out;
    out = { ...rest, [row.field]: value };
  }
  return out;
}
