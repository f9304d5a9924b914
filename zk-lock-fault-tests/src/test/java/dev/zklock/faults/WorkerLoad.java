package dev.zklock.faults;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import dev.zklock.LockException;
import dev.zklock.LockHandle;
import dev.zklock.LockRequest;
import dev.zklock.annotation.LockMode;

/**
 * The {@code load} command of a {@link LockWorker}: threads that take the lock of one
 * key over and over and run a {@link CriticalSection} under it. Parameters:
 * {@code key}, {@code name} (lock name), {@code threads}, {@code grants} (acquisitions
 * per thread; 0 runs until {@code stop}) or {@code attempts} (attempts per thread),
 * {@code sleepMs} (work in the section), {@code timeoutMs} and optionally
 * {@code minTimeoutMs} (each attempt then waits a random time in between),
 * {@code interruptMs} (interrupt a random thread that often), {@code lock=false} (the
 * unlocked control), {@code readers} (that many threads take READ and run read
 * sections, the others WRITE: a READ/WRITE mix on one key), {@code handoff=true} (lock
 * with local hand-off: the threads queue in this JVM and pass the lock among
 * themselves), {@code record=<file>} (write every attempt's times and token there,
 * see {@link GrantLog}), {@code resource} (the resource for this load instead of the
 * worker's, see {@link ResourceClient#connect(String)}). Emits {@code load-done} with the counts when every thread has
 * finished.
 */
final class WorkerLoad {

	private final WorkerSettings settings;

	private final String id;

	private final String key;

	private final LockRequest request;

	private final LockRequest readRequest;

	private final int readers;

	private final int threads;

	private final long grants;

	private final long attempts;

	private final long sleepMillis;

	private final long minTimeoutMillis;

	private final long maxTimeoutMillis;

	private final long interruptMillis;

	private final boolean locked;

	private final boolean handoff;

	private final GrantLog record;

	private final String resource;

	private final List<Thread> workers = new ArrayList<>();

	private volatile boolean stopped;

	private final Map<String, LongAdder> counts = new ConcurrentHashMap<>();

	private final AtomicLong finished = new AtomicLong();

	WorkerLoad(WorkerSettings settings, String id, Map<String, String> command) {
		this.settings = settings;
		this.id = id;
		this.key = command.get("key");
		this.readers = Integer.parseInt(command.getOrDefault("readers", "0"));
		this.request = LockWorker.request(command, (this.readers > 0) ? LockMode.WRITE : LockMode.MUTEX).build();
		this.readRequest = LockWorker.request(command, LockMode.READ).build();
		this.handoff = LockWorker.isHandoff(command);
		this.resource = command.getOrDefault("resource", settings.resource());
		this.record = command.containsKey("record") ? new GrantLog(Path.of(command.get("record"))) : null;
		this.threads = Integer.parseInt(command.getOrDefault("threads", "1"));
		this.grants = Long.parseLong(command.getOrDefault("grants", "0"));
		this.attempts = Long.parseLong(command.getOrDefault("attempts", "0"));
		this.sleepMillis = Long.parseLong(command.getOrDefault("sleepMs", "0"));
		this.maxTimeoutMillis = Long.parseLong(command.getOrDefault("timeoutMs", "30000"));
		this.minTimeoutMillis = Long.parseLong(command.getOrDefault("minTimeoutMs", command.getOrDefault("timeoutMs",
				"30000")));
		this.interruptMillis = Long.parseLong(command.getOrDefault("interruptMs", "0"));
		this.locked = Boolean.parseBoolean(command.getOrDefault("lock", "true"));
	}

	void start() {
		long startNanos = System.nanoTime();
		for (int i = 0; i < this.threads; i++) {
			boolean reader = i < this.readers;
			Thread thread = new Thread(() -> runThread(startNanos, reader), this.id + "-" + i);
			this.workers.add(thread);
		}
		this.workers.forEach(Thread::start);
		if (this.interruptMillis > 0) {
			Thread interrupter = new Thread(this::interruptRandomly, this.id + "-interrupter");
			interrupter.setDaemon(true);
			interrupter.start();
		}
	}

	void stop() {
		this.stopped = true;
	}

	private void runThread(long startNanos, boolean reader) {
		List<long[]> attempts = (this.record != null) ? this.record.thread() : null;
		try (ResourceClient resource = ResourceClient.connect(this.resource, this.handoff)) {
			long acquired = 0;
			for (long attempt = 0; !this.stopped; attempt++) {
				if ((this.grants > 0 && acquired >= this.grants) || (this.attempts > 0 && attempt >= this.attempts)) {
					break;
				}
				if (Thread.interrupted()) {
					count("interruptsCleared");
				}
				count("attempts");
				if (attemptOnce(resource, reader, attempts)) {
					acquired++;
				}
			}
		}
		catch (RuntimeException ex) {
			count("threadFailures");
			WorkerEvents.emit("error", "id", this.id, "thread", Thread.currentThread().getName(), "error",
					ex.toString().replace(' ', '_'));
		}
		finally {
			if (this.finished.incrementAndGet() == this.threads) {
				if (this.record != null) {
					this.record.write();
				}
				emitDone(startNanos);
			}
		}
	}

	// attempts: where the attempt's times go, or null
	private boolean attemptOnce(ResourceClient resource, boolean reader, List<long[]> attempts) {
		long ask = System.nanoTime();
		if (!this.locked) {
			count(CriticalSection.run(resource, this.key, false, this.sleepMillis).name());
			if (attempts != null) {
				GrantLog.granted(attempts, ask, ask, System.nanoTime(), 0);
			}
			return true;
		}
		LockHandle handle;
		try {
			LockRequest request = reader ? this.readRequest : this.request;
			handle = this.settings.template().tryAcquire(request.withTimeout(nextTimeout()));
		}
		catch (LockException ex) {
			count(Thread.currentThread().isInterrupted() ? "interruptedAcquires" : "lockErrors");
			if (attempts != null) {
				GrantLog.gaveUp(attempts, ask, System.nanoTime());
			}
			return false;
		}
		if (!handle.isAcquired()) {
			count("timeouts");
			if (attempts != null) {
				GrantLog.gaveUp(attempts, ask, System.nanoTime());
			}
			return false;
		}
		long enter = System.nanoTime();
		count("grants");
		try {
			count((reader ? CriticalSection.read(resource, this.key, this.sleepMillis)
					: CriticalSection.run(resource, this.key, true, this.sleepMillis)).name());
		}
		finally {
			if (attempts != null) {
				GrantLog.granted(attempts, ask, enter, System.nanoTime(), handle.fencingToken());
			}
			try {
				handle.close();
			}
			catch (LockException ex) {
				count("releaseErrors");
			}
		}
		return true;
	}

	private Duration nextTimeout() {
		if (this.minTimeoutMillis >= this.maxTimeoutMillis) {
			return Duration.ofMillis(this.maxTimeoutMillis);
		}
		return Duration.ofMillis(ThreadLocalRandom.current().nextLong(this.minTimeoutMillis, this.maxTimeoutMillis + 1));
	}

	private void interruptRandomly() {
		while (this.finished.get() < this.threads) {
			try {
				Thread.sleep(ThreadLocalRandom.current().nextLong(1, 2 * this.interruptMillis + 1));
			}
			catch (InterruptedException ex) {
				return;
			}
			Thread target = this.workers.get(ThreadLocalRandom.current().nextInt(this.workers.size()));
			if (target.isAlive()) {
				target.interrupt();
				count("interruptsSent");
			}
		}
	}

	private void count(String name) {
		this.counts.computeIfAbsent(name, (k) -> new LongAdder()).increment();
	}

	private void emitDone(long startNanos) {
		List<Object> fields = new ArrayList<>(List.of("id", this.id, "ms", (System.nanoTime() - startNanos) / 1_000_000));
		this.counts.forEach((name, adder) -> {
			fields.add(name);
			fields.add(adder.sum());
		});
		WorkerEvents.emit("load-done", fields.toArray());
	}

}
