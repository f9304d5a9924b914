package dev.zklock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.LockTemplate;
import dev.zklock.annotation.LockMode;
import dev.zklock.faults.WorkerEvents;
import dev.zklock.testsupport.ParentWatchdog;

/**
 * Main class of an application JVM for {@link SemaphoreExclusionProcessTests}: after
 * {@code go}, {@value #THREADS} threads take SEMAPHORE lock {@value #LOCK_NAME} through
 * {@link LockTemplate}, hold it 2 to 30 ms and release it, over and over until
 * {@code stop}. Each hold is reported on standard output ({@link WorkerEvents}) as
 * {@code enter}, with a {@link System#nanoTime()} taken after the acquire returned, and
 * {@code exit}, with one taken before the release is called; on Linux both read
 * {@code CLOCK_MONOTONIC}, which all processes share.
 * <p>
 * Arguments: {@code --id=}, {@code --connect=}, {@code --key=}, {@code --permits=} and
 * {@code --local=true} for the control, whose threads take a
 * {@link java.util.concurrent.Semaphore} of this JVM instead of the distributed lock.
 * Commands: {@code go}, {@code linger} (the next hold lasts until the JVM is killed),
 * {@code stop} (finish, report {@code done} with the counts, exit).
 */
public final class SemaphoreWorker {

	static final String LOCK_NAME = "pool";

	static final String BASE_PATH = "/semaphore-processes";

	static final int THREADS = 4;

	static final Duration SESSION_TIMEOUT = Duration.ofSeconds(4);

	private static final Duration LINGER = Duration.ofSeconds(60);

	private final String id;

	private final LockRequest request;

	private final LockTemplate template;

	private final CuratorFramework client;

	// the control's stand-in for the distributed lock, used only with --local=true
	private final Semaphore local;

	private final boolean useLocal;

	private final AtomicBoolean stopped = new AtomicBoolean();

	private final AtomicBoolean linger = new AtomicBoolean();

	private final AtomicLong holds = new AtomicLong();

	private final AtomicLong timeouts = new AtomicLong();

	private final AtomicLong errors = new AtomicLong();

	private final AtomicLong lost = new AtomicLong();

	private SemaphoreWorker(String id, LockRequest request, LockTemplate template, CuratorFramework client,
			boolean useLocal) {
		this.id = id;
		this.request = request;
		this.template = template;
		this.client = client;
		this.local = new Semaphore(request.permits());
		this.useLocal = useLocal;
	}

	public static void main(String[] args) throws Exception {
		Map<String, String> arguments = new LinkedHashMap<>();
		for (String arg : args) {
			int equals = arg.indexOf('=');
			arguments.put(arg.substring(2, equals), arg.substring(equals + 1));
		}
		String id = require(arguments, "id");
		CuratorFramework client = CuratorFrameworkFactory.builder()
			.connectString(require(arguments, "connect"))
			.sessionTimeoutMs((int) SESSION_TIMEOUT.toMillis())
			.connectionTimeoutMs(15_000)
			.retryPolicy(new ExponentialBackoffRetry(100, 3))
			.build();
		client.start();
		if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
			throw new IllegalStateException(id + " could not connect to " + require(arguments, "connect"));
		}
		CuratorLockManager manager = new CuratorLockManager(client, BASE_PATH, Duration.ofSeconds(30));
		manager.addLockLossListener((lock, reason) -> WorkerEvents.emit("lost", "id", id, "reason", reason));
		LockRequest request = LockRequest.named(LOCK_NAME)
			.keys(require(arguments, "key"))
			.mode(LockMode.SEMAPHORE)
			.permits(Integer.parseInt(require(arguments, "permits")))
			.timeout(Duration.ofSeconds(30))
			.build();
		SemaphoreWorker worker = new SemaphoreWorker(id, request, new LockTemplate(manager), client,
				Boolean.parseBoolean(arguments.getOrDefault("local", "false")));
		WorkerEvents.emit("ready", "id", id, "session", worker.session());
		worker.run();
		manager.close();
		client.close();
		System.exit(0);
	}

	private void run() throws InterruptedException {
		List<Thread> threads = new ArrayList<>();
		while (true) {
			String command = ParentWatchdog.commands().take();
			if (command.equals("go")) {
				for (int i = 0; i < THREADS; i++) {
					int number = i;
					Thread thread = new Thread(() -> loop(number), this.id + "-" + number);
					thread.setDaemon(true);
					threads.add(thread);
					thread.start();
				}
			}
			else if (command.equals("linger")) {
				this.linger.set(true);
			}
			else if (command.equals("stop")) {
				this.stopped.set(true);
				for (Thread thread : threads) {
					thread.join(30_000);
				}
				WorkerEvents.emit("done", "id", this.id, "holds", this.holds.get(), "timeouts", this.timeouts.get(),
						"errors", this.errors.get(), "lost", this.lost.get());
				return;
			}
		}
	}

	private void loop(int thread) {
		long localTokens = 0;
		while (!this.stopped.get()) {
			try {
				if (this.useLocal) {
					this.local.acquire();
					try {
						hold(thread, -(++localTokens), "local", true);
					}
					finally {
						this.local.release();
					}
				}
				else {
					try (LockHandle handle = this.template.tryAcquire(this.request)) {
						if (!handle.isAcquired()) {
							this.timeouts.incrementAndGet();
							WorkerEvents.emit("timeout", "id", this.id, "thread", thread);
							continue;
						}
						hold(thread, handle.fencingToken(), session(), handle.isHeld());
						if (!handle.isHeld()) {
							this.lost.incrementAndGet();
							WorkerEvents.emit("lost-hold", "id", this.id, "thread", thread);
						}
					}
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
			catch (RuntimeException ex) {
				this.errors.incrementAndGet();
				WorkerEvents.emit("error", "id", this.id, "thread", thread, "error",
						ex.toString().replace(' ', '_'));
			}
		}
	}

	// the critical section: its times are taken inside the acquire-release bracket
	private void hold(int thread, long token, String session, boolean acquired) throws InterruptedException {
		long entered = System.nanoTime();
		boolean lingering = this.linger.compareAndSet(true, false);
		WorkerEvents.emit("enter", "id", this.id, "thread", thread, "token", token, "session", session, "at",
				entered, "linger", lingering, "held", acquired);
		this.holds.incrementAndGet();
		Thread.sleep(lingering ? LINGER.toMillis() : ThreadLocalRandom.current().nextLong(2, 31));
		long exited = System.nanoTime();
		WorkerEvents.emit("exit", "id", this.id, "thread", thread, "token", token, "at", exited);
	}

	private String session() {
		try {
			return Long.toHexString(this.client.getZookeeperClient().getZooKeeper().getSessionId());
		}
		catch (Exception ex) {
			return "unknown";
		}
	}

	private static String require(Map<String, String> arguments, String name) {
		String value = arguments.get(name);
		if (value == null) {
			throw new IllegalArgumentException("Missing argument --" + name + "=");
		}
		return value;
	}

}
