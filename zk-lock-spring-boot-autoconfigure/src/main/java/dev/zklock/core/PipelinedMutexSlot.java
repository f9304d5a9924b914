package dev.zklock.core;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.apache.curator.framework.CuratorFramework;

import dev.zklock.annotation.LockMode;

/**
 * {@link LockMode#MUTEX} on an {@link AsyncMutex}: the same nodes as
 * {@code InterProcessMutex}, but the first read of the queue is sent right
 * behind the create, so an uncontended acquisition takes one round trip. The
 * calling thread parks on the attempt (its blocker) until it completes, times
 * out or is interrupted; a node is never left behind when nothing is held.
 */
final class PipelinedMutexSlot extends LockSlot {

	private final CuratorFramework client;

	private final LockOwnerData ownerData;

	private AsyncMutex held;

	PipelinedMutexSlot(CuratorFramework client, String name, String key, String path, LockOwnerData ownerData) {
		super(name, key, path);
		this.client = client;
		this.ownerData = ownerData;
	}

	@Override
	LockNode acquire(LockMode mode, long waitMillis) throws Exception {
		AsyncMutex attempt = new AsyncMutex(this.client, path(), this.ownerData, waitMillis == 0);
		CompletableFuture<LockNode> result = attempt.start();
		try {
			awaitCompletion(attempt, result, waitMillis);
		}
		catch (InterruptedException ex) {
			attempt.abandon();
			try {
				if (outcome(attempt, result) != null) {
					awaitIgnoringInterrupts(attempt.release());
				}
			}
			catch (Exception failure) {
				ex.addSuppressed(failure);
			}
			throw ex;
		}
		// timed out: a node that won meanwhile is ours, else give up and wait for its deletion
		attempt.abandon();
		LockNode node = outcome(attempt, result);
		if (node != null) {
			this.held = attempt;
		}
		return node;
	}

	@Override
	void release(LockMode mode) throws Exception {
		AsyncMutex mutex = this.held;
		this.held = null;
		if (mutex != null) {
			await(mutex.release());
		}
	}

	// Park on the attempt until it completes, the wait is over (0 waits for the single try) or an interrupt
	private static void awaitCompletion(AsyncMutex attempt, CompletableFuture<LockNode> result, long waitMillis)
			throws InterruptedException {
		Thread waiter = Thread.currentThread();
		result.whenComplete((node, ex) -> LockSupport.unpark(waiter));
		long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis);
		while (!result.isDone()) {
			if (Thread.interrupted()) {
				throw new InterruptedException();
			}
			if (waitMillis == 0) {
				LockSupport.park(attempt);
			}
			else {
				long remaining = deadline - System.nanoTime();
				if (remaining <= 0) {
					return;
				}
				LockSupport.parkNanos(attempt, remaining);
			}
		}
	}

	/**
	 * The node of a completed attempt, or {@code null} once its node is confirmed
	 * deleted; throws the attempt's failure.
	 */
	private static LockNode outcome(AsyncMutex attempt, CompletableFuture<LockNode> result) throws Exception {
		LockNode node;
		try {
			node = awaitIgnoringInterrupts(result);
		}
		catch (Exception ex) {
			awaitRemoval(attempt, ex);
			throw ex;
		}
		if (node == null) {
			awaitIgnoringInterrupts(attempt.removed());
		}
		return node;
	}

	private static void awaitRemoval(AsyncMutex attempt, Exception failure) {
		try {
			awaitIgnoringInterrupts(attempt.removed());
		}
		catch (Exception ex) {
			failure.addSuppressed(ex);
		}
	}

	private static <T> T await(CompletableFuture<T> future) throws Exception {
		try {
			return future.get();
		}
		catch (ExecutionException ex) {
			throw unwrap(ex);
		}
	}

	// ZooKeeper answers or Curator gives up in bounded time; the interrupt flag is kept
	private static <T> T awaitIgnoringInterrupts(CompletableFuture<T> future) throws Exception {
		boolean interrupted = false;
		try {
			while (true) {
				try {
					return await(future);
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private static Exception unwrap(ExecutionException ex) {
		Throwable cause = ex.getCause();
		if (cause instanceof Error error) {
			throw error;
		}
		return (cause instanceof Exception exception) ? exception : ex;
	}

}
