import { views } from "gg";
views.openText("x", { get body() { console.log(1); return "b"; } } as any);
export default 4;
