package dev.zklock.core;

import org.jspecify.annotations.Nullable;

import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one timer thread of an engine ({@code zk-lock-timer}): deadlines of
 * asynchronous waits, the end of single tries, hold caps and minimum holds, and
 * the revocation sweep. Its tasks only send background calls or complete futures,
 * so one daemon thread serves them all. Once closed it accepts nothing, and a
 * caller learns so from a {@code null} answer rather than an exception.
 */
final class EngineTimer implements Executor {

	private static final Logger logger = LoggerFactory.getLogger(EngineTimer.class);

	private final ScheduledThreadPoolExecutor executor;

	EngineTimer() {
		this.executor = new ScheduledThreadPoolExecutor(1, (task) -> {
			Thread thread = new Thread(task, "zk-lock-timer");
			thread.setDaemon(true);
			return thread;
		});
		this.executor.setRemoveOnCancelPolicy(true);
	}

	/**
	 * Run a task once after a delay.
	 * @return the task's future, or {@code null} when the timer is closed
	 */
	@Nullable ScheduledFuture<?> schedule(Runnable task, long delay, TimeUnit unit) {
		try {
			return this.executor.schedule(task, delay, unit);
		}
		catch (RejectedExecutionException ex) {
			// closed: the engine takes no new locks, so nothing is left untimed that matters
			logger.debug("Lock engine closed; not timing a task", ex);
			return null;
		}
	}

	/**
	 * Run a task on the timer's thread as soon as it is free.
	 * @throws RejectedExecutionException once the timer is closed
	 */
	@Override
	public void execute(Runnable task) {
		this.executor.execute(task);
	}

	/**
	 * Close the timer: the queued tasks are cancelled, except those {@code keep}
	 * accepts, which still run at their time.
	 * @param keep the tasks that outlive the engine
	 */
	void close(Predicate<Runnable> keep) {
		for (Runnable task : this.executor.getQueue()) {
			if (!keep.test(task) && task instanceof Future<?> future) {
				future.cancel(false);
			}
		}
		this.executor.shutdown();
	}

}
