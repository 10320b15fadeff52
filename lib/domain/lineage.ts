import { outcome, type Outcome } from '#lib/domain/problems.ts';

/**
 * Lineage: labware made from other labware names its parents. The link is stored on the child only (its
 * `parents`), and a labware's children are found through an index of those links, so making a child
 * (a transfer, a conversion, a tube from a plate) writes the child and never its parents: any number of
 * children can be made from one parent at once.
 */

export interface LabwareRef {
  type: string;
  id: number;
}

/**
 * A child's parents once it is also made from `added`: each parent once, in id order. A labware is never
 * its own parent (problems concern the input named `parents`).
 */
export function linkParents(child: LabwareRef, parents: readonly LabwareRef[], added: readonly LabwareRef[]): Outcome<LabwareRef[]> {
  const own = added.some((p) => p.id === child.id);
  const problems = own ? [{ code: 'own_parent' as const, input: ['parents'], detail: `${child.type} ${child.id} cannot be its own parent` }] : [];
  return outcome(problems, () => [...new Map([...parents, ...added].map((p) => [p.id, p])).values()].sort((a, b) => a.id - b.id));
}
