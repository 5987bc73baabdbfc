/** A parse tree as JSON: objects, arrays and scalars. */
export type TreeNode = Record<string, unknown>;

export function isTreeNode(v: unknown): v is TreeNode {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Visits every object of a tree, parents before children, without recursion: a tree as deep as a long
 * chain of `a + b + c …` must not exhaust the stack of the thread that checks it. A visitor returning
 * false skips the node's children.
 */
export function walkTree(root: unknown, visit: (node: TreeNode) => void | false): void {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) if (typeof value[i] === "object" && value[i] !== null) stack.push(value[i]);
      continue;
    }
    if (!isTreeNode(value)) continue;
    if (visit(value) === false) continue;
    const children = Object.values(value);
    for (let i = children.length - 1; i >= 0; i--) if (typeof children[i] === "object" && children[i] !== null) stack.push(children[i]);
  }
}
