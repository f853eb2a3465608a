// The table contract: the queries of `contract/tables.json`, answered by the Rust view layer
// (`crates/view/tests/table_contract.rs` writes them), must get the same answers from the
// in-memory backend the other UI tests use.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Column, ErrorCode, TableName, TablePage, TableQuery } from "../src/lib/api";
import { errorCode } from "../src/lib/format";
import { FakeBackend, type FakeTable } from "./fakeBackend";

interface Case {
  name: string;
  query: TableQuery;
  answer?: TablePage;
  error?: ErrorCode;
}

interface Contract {
  tables: Partial<Record<TableName, { columns: Column[]; rows: FakeTable["rows"]; keys: string[] }>>;
  cases: Case[];
}

const contract: Contract = JSON.parse(readFileSync(join(__dirname, "contract", "tables.json"), "utf8"));

function backend(): FakeBackend {
  const fake = new FakeBackend();
  for (const [name, table] of Object.entries(contract.tables)) {
    if (table) fake.tables.set(name as TableName, structuredClone(table));
  }
  return fake;
}

describe("the in-memory backend answers table queries as the Rust view layer", () => {
  it("has cases to run", () => {
    expect(contract.cases.length).toBeGreaterThan(30);
  });

  it.each(contract.cases.map((c, i) => [`${i}: ${c.name}`, c] as const))("%s", async (_, c) => {
    const fake = backend();
    if (c.error !== undefined) {
      const failure: unknown = await fake.queryTable(1, c.query).then(
        () => null,
        (error: unknown) => error,
      );
      expect(errorCode(failure)).toBe(c.error);
    } else {
      expect(await fake.queryTable(1, c.query)).toEqual(c.answer);
    }
  });
});
