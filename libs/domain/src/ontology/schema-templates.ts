import { ObjectTypeInput, RelationTypeInput } from './type-decider';

/** The `template_hint` values of propose-schema (REFERENCE §11). */
export const TEMPLATE_HINTS = ['client_services', 'healthcare', 'supply_chain', 'research_intel', 'custom'] as const;
export type TemplateHint = (typeof TEMPLATE_HINTS)[number];

export interface SchemaTemplate {
  name: string;
  objects: ObjectTypeInput[];
  relations: RelationTypeInput[];
}

const s = (name: string, extra: Record<string, unknown> = {}) => ({ name, type: 'string', ...extra });

/**
 * The starting points propose-schema builds from without a chat model: a few object types
 * with identity fields and extraction hints, and the relations between them. Names avoid the
 * built-in node types (a Stakeholder, not a Person).
 */
export const SCHEMA_TEMPLATES: Record<Exclude<TemplateHint, 'custom'>, SchemaTemplate> = {
  client_services: {
    name: 'Client services',
    objects: [
      { name: 'Client', fields: [s('code'), { name: 'tier', type: 'enum', enum: ['gold', 'silver', 'bronze'] }, s('industry')], identity_fields: ['code'], extraction_hints: { categories: ['organization'] } },
      { name: 'Engagement', fields: [s('title'), { name: 'client', type: 'reference', reference_object_type: 'Client' }, { name: 'status', type: 'enum', enum: ['proposed', 'active', 'closed'] }, { name: 'start_date', type: 'date' }], required_fields: ['title'] },
      { name: 'Stakeholder', fields: [s('email'), s('role')], extraction_hints: { categories: ['person'] } },
    ],
    relations: [
      { name: 'has_engagement', source_type: 'Client', target_type: 'Engagement', cardinality: 'one_to_many' },
      { name: 'stakeholder_of', source_type: 'Stakeholder', target_type: 'Client', cardinality: 'many_to_many' },
    ],
  },
  healthcare: {
    name: 'Healthcare',
    objects: [
      { name: 'Patient', fields: [s('mrn'), { name: 'date_of_birth', type: 'date' }], identity_fields: ['mrn'], extraction_hints: { categories: ['person'] } },
      { name: 'Clinician', fields: [s('npi'), s('specialty')], identity_fields: ['npi'] },
      { name: 'Facility', fields: [s('facility_code'), s('city')], extraction_hints: { categories: ['place', 'organization'] } },
      { name: 'Encounter', fields: [{ name: 'encounter_date', type: 'date' }, { name: 'patient', type: 'reference', reference_object_type: 'Patient' }, s('reason')], required_fields: ['encounter_date'] },
    ],
    relations: [
      { name: 'treated_by', source_type: 'Patient', target_type: 'Clinician', cardinality: 'many_to_many' },
      { name: 'encounter_at', source_type: 'Encounter', target_type: 'Facility', cardinality: 'many_to_many' },
    ],
  },
  supply_chain: {
    name: 'Supply chain',
    objects: [
      { name: 'Supplier', fields: [s('supplier_code'), s('country')], identity_fields: ['supplier_code'], extraction_hints: { categories: ['organization'] } },
      { name: 'Component', fields: [s('sku'), s('description'), { name: 'unit_cost', type: 'number' }], identity_fields: ['sku'] },
      { name: 'Shipment', fields: [s('tracking_number'), { name: 'status', type: 'enum', enum: ['planned', 'in_transit', 'delivered', 'delayed'] }, { name: 'eta', type: 'date' }], identity_fields: ['tracking_number'] },
      { name: 'Warehouse', fields: [s('site_code'), s('city')], extraction_hints: { categories: ['place'] } },
    ],
    relations: [
      { name: 'supplies', source_type: 'Supplier', target_type: 'Component', cardinality: 'many_to_many' },
      { name: 'ships_to', source_type: 'Shipment', target_type: 'Warehouse', cardinality: 'many_to_many' },
    ],
  },
  research_intel: {
    name: 'Research intelligence',
    objects: [
      { name: 'Researcher', fields: [s('orcid'), s('field')], extraction_hints: { categories: ['person'] } },
      { name: 'Institution', fields: [s('country')], extraction_hints: { categories: ['organization'] } },
      { name: 'Publication', fields: [s('doi'), { name: 'published', type: 'date' }, s('venue')], identity_fields: ['doi'] },
      { name: 'ResearchTopic', fields: [s('area')] },
    ],
    relations: [
      { name: 'authored', source_type: 'Researcher', target_type: 'Publication', cardinality: 'many_to_many' },
      { name: 'member_of_institution', source_type: 'Researcher', target_type: 'Institution', cardinality: 'many_to_many' },
      { name: 'covers_topic', source_type: 'Publication', target_type: 'ResearchTopic', cardinality: 'many_to_many' },
    ],
  },
};

/** Types proposed for entity categories found in sample documents that no template type covers. */
export const CATEGORY_TYPES: Record<string, ObjectTypeInput> = {
  person: { name: 'Contact', fields: [s('email'), s('role')], extraction_hints: { categories: ['person'] } },
  organization: { name: 'Company', fields: [s('industry')], extraction_hints: { categories: ['organization'] } },
  place: { name: 'Site', fields: [s('city')], extraction_hints: { categories: ['place'] } },
};
