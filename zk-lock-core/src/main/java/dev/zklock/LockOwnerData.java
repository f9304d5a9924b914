package dev.zklock;

import org.jspecify.annotations.Nullable;

/**
 * The data stored in each lock node this process creates, so that ZooKeeper tools
 * ({@code zkCli get}) show who holds or awaits a lock. Called by the acquiring
 * thread once per node created; must be cheap and must not throw.
 */
@FunctionalInterface
public interface LockOwnerData {

	/**
	 * The data for a node created by the current thread.
	 * @return the bytes, or {@code null} for the Curator client's default data
	 */
	byte @Nullable [] forCurrentThread();

	/**
	 * The data for a node this process keeps for local hand-off, shared by several
	 * threads in turn; by default that of the current thread.
	 * @return the bytes, or {@code null} for the Curator client's default data
	 */
	default byte @Nullable [] forInstance() {
		return forCurrentThread();
	}

	/**
	 * Owner data as one line of JSON, such as
	 * <code>{"app":"orders","host":"web-1","pid":4711,"thread":"http-nio-8080-exec-3"}</code>.
	 * Everything but the thread name is computed once.
	 * @param applicationName the application name, or {@code null} to leave it out
	 * @return the owner data
	 */
	static LockOwnerData json(@Nullable String applicationName) {
		return new JsonLockOwnerData(applicationName);
	}

	/**
	 * No owner data: nodes get the Curator client's default data.
	 * @return owner data that always returns {@code null}
	 */
	static LockOwnerData none() {
		return () -> null;
	}

}
