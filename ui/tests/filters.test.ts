import { describe, expect, it } from "vitest";
import type { Column, ColumnFilter } from "../src/lib/api";
import {
  describeFilter,
  filterProblem,
  formatQuickFilter,
  isNumber,
  operatorsFor,
  parseQuickFilter,
} from "../src/lib/filters";

const status: Column = { key: "status_code", title: "Status Code", kind: "number" };
const address: Column = { key: "address", title: "Address", kind: "url" };
const precision: Column = { key: "precision", title: "Precision", kind: "text" };

function f(column: Column, op: ColumnFilter["op"], value: string, upper: string | null = null): ColumnFilter {
  return { column: column.key, op, value, upper };
}

describe("quick filters", () => {
  it("read comparisons on number columns", () => {
    expect(parseQuickFilter(status, ">=300").filter).toEqual(f(status, "ge", "300"));
    expect(parseQuickFilter(status, " ≥ 300 ").filter).toEqual(f(status, "ge", "300"));
    expect(parseQuickFilter(status, ">300").filter).toEqual(f(status, "gt", "300"));
    expect(parseQuickFilter(status, "<=399").filter).toEqual(f(status, "le", "399"));
    expect(parseQuickFilter(status, "<400").filter).toEqual(f(status, "lt", "400"));
    expect(parseQuickFilter(status, "!=200").filter).toEqual(f(status, "ne", "200"));
    expect(parseQuickFilter(status, "≠200").filter).toEqual(f(status, "ne", "200"));
    expect(parseQuickFilter(status, "=200").filter).toEqual(f(status, "eq", "200"));
    expect(parseQuickFilter(status, "200").filter).toEqual(f(status, "eq", "200"));
    expect(parseQuickFilter(status, "300..399").filter).toEqual(f(status, "between", "300", "399"));
    expect(parseQuickFilter(status, "-1 .. 0.5").filter).toEqual(f(status, "between", "-1", "0.5"));
  });

  it("refuse a comparison without a number on number columns, and read words as text", () => {
    expect(parseQuickFilter(status, ">=abc").error).toContain("needs a number");
    expect(parseQuickFilter(status, "n/a").filter).toEqual(f(status, "contains", "n/a"));
    expect(parseQuickFilter(status, "").filter).toBeNull();
    expect(parseQuickFilter(status, "   ").filter).toBeNull();
  });

  it("read text operators", () => {
    expect(parseQuickFilter(address, "comment-page").filter).toEqual(f(address, "contains", "comment-page"));
    expect(parseQuickFilter(address, "=https://a/").filter).toEqual(f(address, "equals", "https://a/"));
    expect(parseQuickFilter(address, "!=x").filter).toEqual(f(address, "not_equals", "x"));
    expect(parseQuickFilter(address, "!utm_").filter).toEqual(f(address, "not_contains", "utm_"));
    expect(parseQuickFilter(address, "^https://").filter).toEqual(f(address, "starts_with", "https://"));
    expect(parseQuickFilter(address, ".pdf$").filter).toEqual(f(address, "ends_with", ".pdf"));
    expect(parseQuickFilter(address, "^x$").filter).toEqual(f(address, "equals", "x"));
    expect(parseQuickFilter(address, "/page-[0-9]+/").filter).toEqual(f(address, "regex", "page-[0-9]+"));
    expect(parseQuickFilter(address, ">x").filter).toEqual(f(address, "contains", ">x"));
  });

  it("read number comparisons on text columns", () => {
    expect(parseQuickFilter(precision, ">=0.9").filter).toEqual(f(precision, "ge", "0.9"));
    expect(parseQuickFilter(precision, "==1").filter).toEqual(f(precision, "eq", "1"));
    expect(parseQuickFilter(precision, "=1").filter).toEqual(f(precision, "equals", "1"));
  });

  it("write back what they read", () => {
    const typed: [Column, string][] = [
      [status, ">=300"],
      [status, "<400"],
      [status, "!=200"],
      [status, "200"],
      [status, "300..399"],
      [address, "comment"],
      [address, "=x"],
      [address, "!=x"],
      [address, "!x"],
      [address, "^x"],
      [address, "x$"],
      [address, "/a|b/"],
      [precision, "==1"],
      [precision, "≠1"],
    ];
    for (const [column, text] of typed) {
      const read = parseQuickFilter(column, text).filter as ColumnFilter;
      expect(formatQuickFilter(column, read), text).toBe(text);
      expect(parseQuickFilter(column, formatQuickFilter(column, read)).filter).toEqual(read);
    }
  });
});

describe("filters", () => {
  it("offer a column's own operators first", () => {
    expect(operatorsFor("number")[0].ops).toContain("ge");
    expect(operatorsFor("url")[0].ops).toContain("contains");
  });

  it("read as chips", () => {
    expect(describeFilter("Status Code", f(status, "ge", "300"))).toBe("Status Code ≥ 300");
    expect(describeFilter("Status Code", f(status, "between", "300", "399"))).toBe("Status Code between 300 and 399");
    expect(describeFilter("Address", f(address, "contains", "comment"))).toBe("Address contains “comment”");
    expect(describeFilter("Title 1", f(address, "equals", ""))).toBe("Title 1 is empty");
    expect(describeFilter("Address", f(address, "regex", "a+"))).toBe("Address matches /a+/");
  });

  it("check numbers as the shell reads them", () => {
    for (const yes of ["300", "-1", "+2", "0.95", ".5", "1.", " 7 "]) expect(isNumber(yes), yes).toBe(true);
    for (const no of ["", "1e3", "inf", "NaN", "1,000", "0x10", ".", "--1"]) expect(isNumber(no), no).toBe(false);
    expect(filterProblem(f(status, "ge", "x"))).toContain("needs a number");
    expect(filterProblem(f(status, "between", "1", null as unknown as string))).toContain("two numbers");
    expect(filterProblem(f(status, "between", "1", "2"))).toBeNull();
    expect(filterProblem(f(address, "regex", "("))).toBeNull();
  });
});
