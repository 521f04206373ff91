function spawn() { queueMicrotask(spawn); queu}
spawn();
export default 1;
