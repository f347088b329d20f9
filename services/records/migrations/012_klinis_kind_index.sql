-- A kind's entries in id order, for the export's pages of one FHIR type (Observation, Condition,
-- AllergyIntolerance are one table's kinds): without it each page walked the table's id order and
-- skipped every other kind's rows, most of the table for the rarer kinds (docs/benchmarks.md, "Bulk
-- Data export").
create index klinis_kind on records.klinis (tenant_id, jenis, id);
