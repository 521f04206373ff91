// A program as a model would answer a turn: read a file, keep a note,
// print, and export a value. Try it: gg run hello.ts --profile profile.json5 --workspace workspace
import { memories, views } from "gg";

views.openFile("notes.md", { limit: 20 }); // arrives in the window next turn

memories.createMemory({
  name: "first-steps",
  description: "What the first program did",
  body: "Opened notes.md and wrote this memory.",
});

const words = "responses as code".split(" ");
console.log(`${words.length} words`);
export default { words };
