import { beforeEach, describe, expect, it } from "vitest";
import { folderOf, lastFolder, rememberFolder } from "../src/lib/backend";

describe("file dialogs start in the last folder used", () => {
  beforeEach(() => localStorage.clear());

  it("takes the folder of a chosen path, either separator", () => {
    expect(folderOf("/home/me/Documents/urls.txt")).toBe("/home/me/Documents");
    expect(folderOf("C:\\Users\\me\\logs\\access.log")).toBe("C:\\Users\\me\\logs");
    expect(folderOf("/urls.txt")).toBe("/");
    expect(folderOf("urls.txt")).toBeNull();
  });

  it("remembers the folder of the last file chosen, not a cancelled dialog", () => {
    expect(lastFolder()).toBeNull();
    rememberFolder("/home/me/exports/pages.csv");
    expect(lastFolder()).toBe("/home/me/exports");
    rememberFolder(null);
    expect(lastFolder()).toBe("/home/me/exports");
  });
});
