package dev.zklock.leader;

import java.lang.reflect.Method;
import java.util.function.Supplier;

/**
 * A checked {@code @Leader} method: its role, what a skipped call returns, and
 * where the fencing token goes.
 *
 * @param method the method
 * @param description the class, method and parameter types, for messages
 * @param role the role
 * @param healthGroup the health group that the declaration names, or empty to
 * follow {@code zk-lock.leadership.health-group}
 * @param skipValue supplies what a call on a non-leader returns
 * @param fencingTokenParameter the index of the {@code FencingToken} parameter,
 * or -1
 * @param suspending whether it is a Kotlin suspend function, whose body runs when
 * Spring's proxy subscribes to what the interceptor returns
 */
record LeaderMethod(Method method, String description, String role, String healthGroup, Supplier<Object> skipValue,
		int fencingTokenParameter, boolean suspending) {

}
