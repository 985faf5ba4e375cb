#!/bin/sh
# The database's two roles, made once when the postgres container initialises its data
# directory (/docker-entrypoint-initdb.d, deploy/compose.yaml; docs/deploy.md "Database
# roles"). The owner runs the migrations and owns the tables, the audit trail among them;
# the serving role, which every web process, worker and beat logs in as, gets the rows of
# the tables (grants in the migrations), creates and owns the schemas of new sites, and
# can neither alter the trail nor its triggers. The superuser is for administration only.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
    -v db="$POSTGRES_DB" \
    -v owner="$DATABASE_OWNER_ROLE" -v owner_password="$DATABASE_OWNER_PASSWORD" \
    -v serving="$DATABASE_SERVING_ROLE" -v serving_password="$DATABASE_SERVING_PASSWORD" <<'SQL'
CREATE ROLE :"owner" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD :'owner_password';
CREATE ROLE :"serving" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD :'serving_password';
-- The owner migrates the schemas of sites the serving role created (and owns).
GRANT :"serving" TO :"owner";
ALTER DATABASE :"db" OWNER TO :"owner";
ALTER SCHEMA public OWNER TO :"owner";
REVOKE ALL ON DATABASE :"db" FROM PUBLIC;
GRANT CONNECT, TEMPORARY ON DATABASE :"db" TO :"serving";
SQL
