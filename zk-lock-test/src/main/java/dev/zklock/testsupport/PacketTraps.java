package dev.zklock.testsupport;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import org.jspecify.annotations.Nullable;

/**
 * The traps that a {@link ZooKeeperProxy} sets for the client's next {@code delete} or
 * {@code create} request: each fires once, on the first connection whose request
 * matches, and a new trap of the same kind replaces (and cancels) the armed one.
 */
final class PacketTraps {

	private final AtomicReference<DeleteTrap> delete = new AtomicReference<>();

	private final AtomicReference<CreateTrap> create = new AtomicReference<>();

	CompletableFuture<Long> armDelete(boolean afterExecution) {
		DeleteTrap next = new DeleteTrap(afterExecution, new CompletableFuture<>());
		DeleteTrap previous = this.delete.getAndSet(next);
		if (previous != null) {
			previous.fired().cancel(false);
		}
		return next.fired();
	}

	CompletableFuture<Long> armCreate(String pathPart) {
		CreateTrap next = new CreateTrap(pathPart, new CompletableFuture<>());
		CreateTrap previous = this.create.getAndSet(next);
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
	 * Disarm the create trap for a create request of the given path.
	 * @param path the path to create
	 * @return the trap, or {@code null} when none is armed for that path
	 */
	@Nullable CreateTrap takeCreate(String path) {
		CreateTrap armed = this.create.get();
		return (armed != null && path.contains(armed.pathPart()) && this.create.compareAndSet(armed, null)) ? armed
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
	 * A trap for the next create request of a path.
	 * @param pathPart a part of the path
	 * @param fired completes with {@link System#nanoTime()} once the proxy blackholes
	 */
	record CreateTrap(String pathPart, CompletableFuture<Long> fired) {

	}

}
