// Typings for the `gg` module, as programs import it:
//   import { memories, views } from "gg";
// All calls are synchronous; a refused call throws a GgError.
declare module "gg" {
  export class GgError extends Error {
    /** invalid-argument | limit-exceeded | unavailable | read-only | not-found | io-error | internal */
    readonly code: string;
  }
  export interface MemoryInput {
    name: string;          // the slug: 1-64 of letters, digits, - _ .
    description?: string;  // optional only under keyword-search
    body: string;
    code?: string;         // TypeScript module, <= 32 768 characters
    onUse?: string;        // TypeScript script, <= 32 768 characters
  }
  export interface Memory { name: string; description: string; body: string; code?: string }  // onUse is never returned
  export interface SearchHit { name: string; description: string; excerpt: string; distinct: number; occurrences: number }
  export namespace memories {
    // scratchpad
    function writeMemory(m: MemoryInput): void;
    function updateMemory(m: MemoryInput): void;   // replaces description, body and both code halves
    // markdown and keyword-search
    function createMemory(m: MemoryInput): void;
    function readMemory(name: string): Memory;
    function editMemory(e: { name: string; oldString: string; newString: string }): void;
    // all three
    function deleteMemory(name: string): void;
    // keyword-search
    function searchMemories(keywords: string[]): SearchHit[];
  }
  export namespace views {
    function openFile(path: string, options?: { offset?: number; limit?: number }): void;  // offset: first line, 1-based
    function openText(label: string, body: string): void;
    function close(labelOrPath: string): void;
  }
  const gg: { memories: typeof memories; views: typeof views; GgError: typeof GgError };
  export default gg;
}
