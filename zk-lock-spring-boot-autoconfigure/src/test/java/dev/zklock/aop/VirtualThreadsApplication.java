package dev.zklock.aop;

import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;

import org.springframework.boot.Banner;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.task.AsyncTaskExecutor;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.core.CuratorLockManager;
import dev.zklock.core.InstrumentedLockManager;
import dev.zklock.LockManager;

import static org.awaitility.Awaitility.await;

/**
 * A Spring Boot application for {@link VirtualThreadsTests}, run on a JDK 21 or
 * newer with {@code spring.threads.virtual.enabled=true}: 1,000 tasks on Boot's
 * virtual-thread executor wait for one lock key at once, then take turns. While
 * they wait, a thread dump tells how many of them wait inside a monitor
 * ({@code Object.wait}, which pins the carrier on JDK 21) and how many are parked
 * in zk-lock; JFR counts {@code jdk.VirtualThreadPinned} events. With
 * {@code --control} the tasks use one Curator {@code InterProcessMutex} each
 * instead, which waits in a monitor. One holder and one waiter go first, unrecorded,
 * so that the classes their path loads are loaded before the count (a virtual thread
 * that waits for a class loader pins). Prints one {@code RESULT ...} line.
 */
@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class VirtualThreadsApplication {

	private static final int TASKS = 1000;

	private static final Duration WAIT = Duration.ofSeconds(120);

	@Bean
	Counter counter() {
		return new Counter();
	}

	public static void main(String[] args) {
		try {
			boolean control = List.of(args).contains("--control");
			Path dir = Files.createTempDirectory("zk-lock-vt");
			try {
				SpringApplication application = new SpringApplication(VirtualThreadsApplication.class);
				application.setWebApplicationType(WebApplicationType.NONE);
				application.setBannerMode(Banner.Mode.OFF);
				application.setDefaultProperties(Map.of("spring.docker.compose.enabled", "false",
						"spring.threads.virtual.enabled", "true", "zk-lock.default-timeout", "120s"));
				String result;
				List<RecordedEvent> pins;
				try (ConfigurableApplicationContext context = application.run(args);
						Recording recording = new Recording()) {
					// One waiter first, unrecorded: a virtual thread that loads a class pins its carrier while
					// it waits for the class loader (JDK 21 to 25 at least), and the first acquire and the first
					// wait load the ZooKeeper client's request classes. That pin is the JVM's, once per class,
					// not a wait of zk-lock's, which is what the 1,000 waiters below are counted for.
					round(context, control, dir, 1);
					context.getBean(Counter.class).reset();
					recording.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO);
					recording.start();
					result = round(context, control, dir, TASKS);
					recording.stop();
					Path jfr = dir.resolve("pinned.jfr");
					recording.dump(jfr);
					pins = RecordingFile.readAllEvents(jfr)
						.stream()
						.filter((event) -> event.getEventType().getName().equals("jdk.VirtualThreadPinned"))
						.toList();
				}
				// where the first pin happened, so that a failure says what pinned
				String where = pins.isEmpty() ? "" : " pinnedAt=" + topFrames(pins.get(0));
				System.out.println("RESULT ok " + result + " pinnedEvents=" + pins.size() + where);
			}
			finally {
				try (var files = Files.list(dir)) {
					for (Path file : files.toList()) {
						Files.delete(file);
					}
				}
				Files.delete(dir);
			}
			System.exit(0);
		}
		catch (Throwable ex) {
			System.out.println("RESULT failed " + ex);
			ex.printStackTrace(System.out);
			System.exit(1);
		}
	}

	// One holder, then the given number of tasks that all wait for it at once, then take turns
	private static String round(ConfigurableApplicationContext context, boolean control, Path dir, int waiters)
			throws Exception {
		AsyncTaskExecutor executor = context.getBean("applicationTaskExecutor", AsyncTaskExecutor.class);
		Counter counter = context.getBean(Counter.class);
		CuratorFramework client = context.getBean(CuratorFramework.class);
		String basePath = context.getEnvironment().getRequiredProperty("zk-lock.base-path");
		InterProcessMutex curatorHolder = new InterProcessMutex(client, basePath + "/curator");
		CountDownLatch held = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		Future<?> holder = executor.submit(() -> {
			if (control) {
				lockWithCurator(curatorHolder, () -> holdUntil(held, release));
			}
			else {
				counter.hold(held, release);
			}
		});
		if (!held.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
			throw new IllegalStateException("The first task did not get the lock");
		}
		List<Future<?>> tasks = new ArrayList<>();
		for (int i = 0; i < waiters; i++) {
			tasks.add(executor.submit(() -> {
				if (control) {
					lockWithCurator(new InterProcessMutex(client, basePath + "/curator"), counter::count);
				}
				else {
					counter.increment();
				}
			}));
		}
		// every task waits: its node is queued and its thread parked (zk-lock) or in Object.wait (Curator)
		String[] dump = new String[1];
		await().atMost(WAIT).pollInterval(Duration.ofMillis(200)).until(() -> {
			if (queued(context, client, basePath, control) < waiters) {
				return false;
			}
			dump[0] = threadDump(dir);
			return count(dump[0], control ? "java.lang.Object.wait" : "dev.zklock.core.CuratorLockManager.awaitAcquisition")
					>= waiters;
		});
		release.countDown();
		holder.get(WAIT.toSeconds(), TimeUnit.SECONDS);
		for (Future<?> task : tasks) {
			task.get(WAIT.toSeconds(), TimeUnit.SECONDS);
		}
		return "completed=" + counter.completed().get() + " virtual=" + counter.virtual().get() + " maxActive="
				+ counter.maxActive().get() + " monitorWaiters=" + count(dump[0], "java.lang.Object.wait")
				+ " parkedInZkLock=" + count(dump[0], "dev.zklock.core.CuratorLockManager.awaitAcquisition");
	}

	private static int queued(ConfigurableApplicationContext context, CuratorFramework client, String basePath,
			boolean control) throws Exception {
		return control ? client.getChildren().forPath(basePath + "/curator").size() - 1
				: registry(context).waitingCount();
	}

	private static dev.zklock.core.LockRegistry registry(ConfigurableApplicationContext context) {
		LockManager manager = InstrumentedLockManager.unwrap(context.getBean(LockManager.class));
		return ((CuratorLockManager) manager).getRegistry();
	}

	// Virtual threads (and their stacks) show only in the JDK 21+ thread dump of the diagnostic bean
	private static String threadDump(Path dir) throws Exception {
		Path file = dir.resolve("threads.txt");
		Files.deleteIfExists(file);
		Class<?> format = Class.forName("com.sun.management.HotSpotDiagnosticMXBean$ThreadDumpFormat");
		Method dumpThreads = com.sun.management.HotSpotDiagnosticMXBean.class.getMethod("dumpThreads", String.class,
				format);
		Object plain = format.getField("TEXT_PLAIN").get(null);
		dumpThreads.invoke(ManagementFactory.getPlatformMXBean(com.sun.management.HotSpotDiagnosticMXBean.class),
				file.toString(), plain);
		return Files.readString(file);
	}

	// Virtual threads whose stack contains the frame
	private static int count(String dump, String frame) {
		int count = 0;
		for (String thread : dump.split("\\R\\R")) {
			if (thread.contains("\" virtual ") && thread.contains(frame)) {
				count++;
			}
		}
		return count;
	}

	private static void lockWithCurator(InterProcessMutex mutex, Runnable work) {
		try {
			mutex.acquire();
			try {
				work.run();
			}
			finally {
				mutex.release();
			}
		}
		catch (Exception ex) {
			throw new IllegalStateException(ex);
		}
	}

	static void holdUntil(CountDownLatch held, CountDownLatch release) {
		held.countDown();
		try {
			release.await();
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

	static boolean isVirtual(Thread thread) {
		try {
			return (boolean) Thread.class.getMethod("isVirtual").invoke(thread);
		}
		catch (ReflectiveOperationException ex) {
			return false;
		}
	}

	public static class Counter {

		final AtomicInteger active = new AtomicInteger();

		final AtomicInteger maxActive = new AtomicInteger();

		final AtomicInteger completed = new AtomicInteger();

		final AtomicInteger virtual = new AtomicInteger();

		@DistributedLock(name = "virtual", key = "'one'")
		public void hold(CountDownLatch held, CountDownLatch release) {
			holdUntil(held, release);
		}

		@DistributedLock(name = "virtual", key = "'one'")
		public void increment() {
			count();
		}

		void reset() {
			this.maxActive.set(0);
			this.completed.set(0);
			this.virtual.set(0);
		}

		public AtomicInteger completed() {
			return this.completed;
		}

		public AtomicInteger virtual() {
			return this.virtual;
		}

		public AtomicInteger maxActive() {
			return this.maxActive;
		}

		public void count() {
			this.maxActive.accumulateAndGet(this.active.incrementAndGet(), Math::max);
			if (isVirtual(Thread.currentThread())) {
				this.virtual.incrementAndGet();
			}
			this.active.decrementAndGet();
			this.completed.incrementAndGet();
		}

	}


	private static String topFrames(RecordedEvent pin) {
		if (pin.getStackTrace() == null) {
			return "(no stack)";
		}
		return pin.getStackTrace()
			.getFrames()
			.stream()
			.limit(8)
			.map((frame) -> frame.getMethod().getType().getName() + "." + frame.getMethod().getName() + ":"
					+ frame.getLineNumber())
			.collect(java.util.stream.Collectors.joining("<"));
	}

}
