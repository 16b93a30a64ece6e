-- audit_entry_append_only(): the trigger that refuses every UPDATE and DELETE of an audit entry
-- (the trigger itself is created by audit's first migration).

CREATE OR REPLACE FUNCTION audit_entry_append_only() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit entries are append-only: % refused', TG_OP;
END;
$$;
