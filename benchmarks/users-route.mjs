// The seed blog's store behind GET /users/:id, shared by the HTTP benchmarks: an async lookup, as a driver's
// would be (one await, so async context has a hop to survive).
const users = new Map(
  Array.from({ length: 100 }, (_, i) => [
    String(i + 1),
    { id: String(i + 1), name: `user ${i + 1}`, email: `user${i + 1}@example.org` },
  ]),
);

export async function findUser(id) {
  await null;
  return users.get(id);
}
