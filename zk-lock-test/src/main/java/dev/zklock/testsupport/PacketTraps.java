package dev.zklock.testsupport;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

/**
 * The traps that a {@link ZooKeeperProxy} sets for the client's next {@code delete},
 * or next {@code create} or {@code getData} of a path: each fires once, on the first
 * connection whose request matches, and a new trap of the same kind replaces (and
 * cancels) the armed one.
 */
final class PacketTraps {

	private final AtomicReference<DeleteTrap> delete = new AtomicReference<>();

	private final AtomicReference<RequestTrap> request = new AtomicReference<>();

	CompletableFuture<Long> armDelete(boolean afterExecution) {
		DeleteTrap next = new DeleteTrap(afterExecution, new CompletableFuture<>());
		DeleteTrap previous = this.delete.getAndSet(next);
		if (previous != null) {
			previous.fired().cancel(false);
		}
		return next.fired();
	}

	CompletableFuture<Long> armRequest(Set<Integer> operations, String pathPart) {
		RequestTrap next = new RequestTrap(operations, pathPart, new CompletableFuture<>());
		RequestTrap previous = this.request.getAndSet(next);
		if (previous != null) {
			previous.fired().cancel(false);
		}
		return next.fired();
	}

	/**
	 * Disarm the delete trap for a delete request that goes through.
	 * @return the trap, or {@code null} when none is armed or another connection took it
	 */
	@Nullable DeleteTrap takeDelete() {
		DeleteTrap armed = this.delete.get();
		return (armed != null && this.delete.compareAndSet(armed, null)) ? armed : null;
	}

	/**
	 * Disarm the request trap for a request it matches.
	 * @param packet the request
	 * @return the trap, or {@code null} when none is armed for that request
	 */
	@Nullable RequestTrap takeRequest(byte[] packet) {
		RequestTrap armed = this.request.get();
		if (armed == null) {
			return null;
		}
		String path = ZooKeeperPackets.path(packet, armed.operations());
		return (path != null && path.contains(armed.pathPart()) && this.request.compareAndSet(armed, null)) ? armed
				: null;
	}

	/**
	 * A trap for the next delete request.
	 * @param afterExecution whether the connection is reset after the server executed
	 * the delete, not before
	 * @param fired completes with {@link System#nanoTime()} of the reset
	 */
	record DeleteTrap(boolean afterExecution, CompletableFuture<Long> fired) {

	}

	/**
	 * A trap for the next request of some operations on a path.
	 * @param operations the operation codes
	 * @param pathPart a part of the path
	 * @param fired completes with {@link System#nanoTime()} once the proxy blackholes
	 */
	record RequestTrap(Set<Integer> operations, String pathPart, CompletableFuture<Long> fired) {

	}

}
