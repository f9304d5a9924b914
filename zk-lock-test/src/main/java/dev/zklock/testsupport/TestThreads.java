package dev.zklock.testsupport;

import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An executor for blocking test work: a new named daemon thread whenever none is
 * idle, so that tasks that wait for each other never starve as they can on
 * {@code CompletableFuture}'s common pool (one thread on two cores). Closing it
 * interrupts what still runs and waits for it to end.
 *
 * <pre class="code">
 * try (TestThreads threads = new TestThreads("waiter")) {
 *     CompletableFuture.supplyAsync(() -&gt; manager.acquire(request), threads);
 * }
 * </pre>
 */
public final class TestThreads implements Executor, AutoCloseable {

	private final String name;

	private final ExecutorService pool;

	/**
	 * Create an executor whose threads are named {@code <name>-<n>}.
	 * @param name the thread name prefix
	 */
	public TestThreads(String name) {
		this.name = name;
		AtomicInteger count = new AtomicInteger();
		this.pool = Executors.newCachedThreadPool((task) -> {
			Thread thread = new Thread(task, name + "-" + count.incrementAndGet());
			thread.setDaemon(true);
			return thread;
		});
	}

	@Override
	public void execute(Runnable task) {
		this.pool.execute(task);
	}

	/**
	 * Interrupt running tasks and wait up to 10 seconds for them to end.
	 * @throws IllegalStateException when a task did not end in time
	 */
	@Override
	public void close() {
		this.pool.shutdownNow();
		try {
			if (!this.pool.awaitTermination(10, TimeUnit.SECONDS)) {
				throw new IllegalStateException("Threads '" + this.name + "-*' still run 10 s after an interrupt; "
						+ "a task ignores interrupts");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting for threads '" + this.name + "-*' to end", ex);
		}
	}

}
