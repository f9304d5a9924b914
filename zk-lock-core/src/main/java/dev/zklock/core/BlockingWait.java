package dev.zklock.core;

import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.locks.LockSupport;

import dev.zklock.LockException;
import dev.zklock.annotation.LockMode;

/**
 * How a blocking caller waits on the engine: it parks (never inside a monitor, so
 * a virtual thread leaves its carrier free), an interrupt abandons the
 * acquisition and keeps the flag, and a release is awaited whatever interrupts
 * come.
 */
final class BlockingWait {

	private BlockingWait() {
	}

	/**
	 * Park on the acquisition (its blocker) until it completes.
	 * @return the holds, or {@code null} when the timeout elapsed
	 * @throws LockException when it failed, or the thread was interrupted (its nodes
	 * are removed by then and the interrupt flag is set)
	 */
	static List<Hold> acquisition(LockEngine engine, Acquisition acquisition, String name, LockMode mode) {
		CompletableFuture<List<Hold>> result = acquisition.result();
		if (!result.isDone()) {
			Thread waiter = Thread.currentThread();
			result.whenComplete((holds, ex) -> LockSupport.unpark(waiter));
			boolean timed = acquisition.isTimed();
			while (!result.isDone()) {
				if (Thread.interrupted()) {
					throw interrupted(engine, acquisition, name, mode);
				}
				long remaining = acquisition.deadline() - System.nanoTime();
				if (!timed) {
					LockSupport.park(acquisition);
				}
				else if (remaining > 0) {
					LockSupport.parkNanos(acquisition, remaining);
				}
				else {
					// out of time: give up and wait, whatever interrupts come, until the nodes are gone
					acquisition.timeOut();
					return ignoringAcquisitionInterrupts(result, name, mode);
				}
			}
		}
		try {
			return result.join();
		}
		catch (RuntimeException ex) {
			Throwable cause = LockEngine.unwrap(ex);
			throw (cause instanceof LockException lockException) ? lockException : new LockException(
					"Could not acquire lock '" + name + "' in " + mode + " mode: " + cause, cause);
		}
	}

	private static List<Hold> ignoringAcquisitionInterrupts(CompletableFuture<List<Hold>> result, String name,
			LockMode mode) {
		try {
			return ignoringInterrupts(result);
		}
		catch (LockException ex) {
			throw ex;
		}
		catch (Exception ex) {
			throw new LockException("Could not acquire lock '" + name + "' in " + mode + " mode: " + ex, ex);
		}
	}

	private static LockException interrupted(LockEngine engine, Acquisition acquisition, String name, LockMode mode) {
		LockException failure = new LockException("Interrupted while waiting for lock '" + name + "' key '"
				+ KeyEncoder.abbreviate(acquisition.currentKey()) + "' in " + mode + " mode; its node was removed and "
				+ "the interrupt flag is kept", new InterruptedException());
		try {
			acquisition.cancel();
			List<Hold> won = ignoringInterrupts(acquisition.result());
			// every key was taken just before the interrupt: give them back
			ignoringInterrupts(engine.release(won));
		}
		catch (CancellationException ex) {
			// abandoned, and its nodes are gone
		}
		catch (Exception ex) {
			failure.addSuppressed(ex);
		}
		finally {
			Thread.currentThread().interrupt();
		}
		return failure;
	}

	/**
	 * Wait for a future that ZooKeeper or Curator completes in bounded time; an
	 * interrupt does not end the wait, and the interrupt flag is kept.
	 * @return the future's value
	 * @throws Exception what the future failed with
	 */
	static <T> T ignoringInterrupts(CompletableFuture<T> future) throws Exception {
		boolean interrupted = false;
		try {
			while (true) {
				try {
					return future.get();
				}
				catch (InterruptedException ex) {
					interrupted = true;
				}
				catch (ExecutionException ex) {
					Throwable cause = LockEngine.unwrap(ex);
					if (cause instanceof Error error) {
						throw error;
					}
					throw (cause instanceof Exception exception) ? exception : ex;
				}
			}
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

}
