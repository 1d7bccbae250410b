/**
 * The planner's one working copy of a session: its records in store order and, for each, what the fixes so far made
 * of it. Edits are applied here whatever the store; the store family (model/fixing.ts's RecordFamily) says where a
 * new record goes and how the session reads back, so each planning pass sees exactly what the store will read after
 * the write. What differs from the loaded session at the end is the plan.
 */
import type { FileImage, RecordChange } from "../model/change.js";
import type { Edit } from "../model/edit.js";
import { besideKey, type Beside, type DraftEntry, type LoadedRecords, type RecordFamily } from "../model/fixing.js";

export class WorkingCopy {
  private readonly order: DraftEntry[];
  private readonly byId = new Map<string, DraftEntry>();
  private readonly beside = new Map<string, Beside>();

  constructor(private readonly family: RecordFamily) {
    this.order = family.records().map((original) => ({ id: family.idOf(original), original, rules: [], reasons: [] }));
    for (const entry of this.order) this.byId.set(entry.id, entry);
  }

  /** The session as it stands after every edit so far. */
  records(): LoadedRecords {
    return this.family.assemble(this.order, [...this.beside.values()]);
  }

  apply(edits: readonly Edit[], rule: string): void {
    for (const edit of edits) {
      let entry: DraftEntry;
      if (edit.op === "discard-file" || edit.op === "set-index") {
        const key = besideKey(edit);
        const beside = this.beside.get(key) ?? { edit, rules: [], reasons: [] };
        this.beside.set(key, beside);
        if (!beside.rules.includes(rule)) beside.rules.push(rule);
        beside.reasons.push(edit.reason);
        continue;
      }
      if (edit.op === "insert") {
        const added = this.family.place(edit);
        entry = { id: added.id, added, values: [added.value], rules: [], reasons: [] };
        if (added.after === undefined) this.order.push(entry);
        else {
          const anchor = this.byId.get(added.after);
          if (!anchor) throw new Error(`no record ${added.after} to insert after`);
          this.order.splice(this.order.indexOf(anchor) + 1, 0, entry);
        }
        this.byId.set(entry.id, entry);
      } else {
        const id = this.family.idOf(edit.target);
        const found = this.byId.get(id);
        if (!found) throw new Error(`no record ${id}`);
        entry = found;
        entry.values = edit.op === "delete" ? null : [...(edit.preceding ?? []), edit.value];
      }
      if (!entry.rules.includes(rule)) entry.rules.push(rule);
      entry.reasons.push(edit.reason);
    }
  }

  /** Every record that ends up different, and what the store's writer needs for them. */
  outcome(): { changes: RecordChange[]; files?: FileImage[] } {
    const changes: RecordChange[] = [];
    for (const entry of this.order) {
      const change = this.family.change(entry);
      if (change) changes.push(change);
    }
    return this.family.outcome(this.order, changes, [...this.beside.values()]);
  }
}
