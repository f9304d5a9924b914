package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.util.concurrent.CompletableFuture;
import dev.zklock.core.Nodes.LockNode;

/**
 * One attempt to hold one lock path with a node of our own, without blocking any
 * thread: every ZooKeeper call runs in the background and a watch wakes the
 * attempt. An attempt is used once, by one acquisition, and may be abandoned or
 * released from any thread.
 */
interface NodeAttempt {

	/**
	 * Start the attempt.
	 * @return completes with our node once it holds, with {@code null} when trying
	 * once found the lock taken or the attempt was abandoned, or exceptionally on a
	 * ZooKeeper failure (our node is deleted then)
	 */
	CompletableFuture<LockNode> start();

	/**
	 * Give up: stop waiting and delete our node, now or once its creation is
	 * confirmed. Does nothing once the attempt holds; release it instead.
	 */
	void abandon();

	/**
	 * Release a held lock by deleting our node; Curator keeps deleting it in the
	 * background when ZooKeeper fails.
	 * @return completes once ZooKeeper confirmed the deletion, exceptionally when it
	 * could not be confirmed yet
	 */
	CompletableFuture<Void> release();

	/**
	 * Release a held lock, telling whether it was held for sure until now; a
	 * {@link LocalAttempt} uses it to pass the lock on, a {@link QueueAttempt}
	 * deletes its node either way.
	 * @param sound whether the hold was neither in doubt nor lost
	 * @return as {@link #release()}
	 */
	CompletableFuture<Void> release(boolean sound);

	/**
	 * Completes once the attempt leaves no node behind: its node is confirmed
	 * deleted, or none was created. Never completes while the lock is held.
	 * @return the future
	 */
	CompletableFuture<Void> removed();

	/**
	 * Whether the attempt waits for a watch, queued behind another holder.
	 * @return whether it waits
	 */
	boolean isWatching();

	/**
	 * The node that stands for this attempt in its key's queue while it waits, for
	 * a graph of who waits for whom: our own node, or for a local waiter the
	 * tenure's node it waits behind.
	 * @return the node's full path; {@code null} once the attempt holds or gave up,
	 * or while its node is not created yet
	 */
	@Nullable String waitingNode();

	/**
	 * Whether ZooKeeper has answered the attempt's first request (its create).
	 * @return whether an answer came
	 */
	boolean isAnswered();

}
