package dev.zklock.aop;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import dev.zklock.annotation.DistributedLock;
import dev.zklock.annotation.OnTimeout;
import dev.zklock.autoconfigure.DistributedLockAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.faults.WorkerEvents;
import dev.zklock.testsupport.ParentWatchdog;

/**
 * Main class of an application JVM with a {@code @Scheduled(fixedRate = 1000)}
 * job of about 50 ms under a try-once {@code @DistributedLock} (timeout 0, SKIP),
 * with the {@code minHold} given. Its scheduler fires {@code --offset=} ms after
 * each whole second of a grid that starts at {@code --grid=} (epoch ms), whenever
 * the JVM started, so the instances of a test fire at fixed offsets from each other.
 * Every firing is reported as {@code @@ fired id= at=}, every run as
 * {@code @@ run id= start= end=} (wall-clock ms). Arguments:
 * {@code --id=}, {@code --connect=}, {@code --base-path=}, {@code --min-hold=}
 * (empty for none), {@code --grid=}, {@code --offset=}.
 */
public final class MinHoldWorker {

	static final long PERIOD_MILLIS = 1000;

	private MinHoldWorker() {
	}

	public static void main(String[] args) throws Exception {
		Map<String, String> arguments = WorkerApplications.arguments(args);
		String id = arguments.get("id");
		long grid = Long.parseLong(arguments.get("grid"));
		long offset = Long.parseLong(arguments.get("offset"));
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("spring.application.name", id);
		properties.put("zk-lock.connect-string", arguments.get("connect"));
		properties.put("zk-lock.base-path", arguments.get("base-path"));
		properties.put("zk-lock.session-timeout", "10s");
		properties.put("zk-lock.startup.wait", "60s");
		properties.put("job.min-hold", arguments.get("min-hold"));
		ConfigurableApplicationContext context = WorkerApplications.builder(WorkerConfiguration.class, properties)
			.initializers((applicationContext) -> applicationContext.getBeanFactory()
				.registerSingleton("taskScheduler", new PhasedScheduler(id, grid + offset)))
			.run();
		WorkerEvents.emit("ready", "id", id);
		while (true) {
			String command = ParentWatchdog.commands().take();
			if (command.equals("exit")) {
				context.close();
				System.exit(0);
			}
		}
	}

	/**
	 * The scheduler of the job: it starts a fixed-rate task at the next moment of
	 * this instance's phase, so every period it fires at the same offset from the
	 * whole seconds of the grid, however long the startup took.
	 */
	static final class PhasedScheduler extends ThreadPoolTaskScheduler {

		private final String id;

		private final long phase;

		PhasedScheduler(String id, long phase) {
			this.id = id;
			this.phase = phase;
			setThreadNamePrefix("job-");
			initialize();
		}

		@Override
		public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, Instant startTime, Duration period) {
			return super.scheduleAtFixedRate(reported(task), aligned(startTime), period);
		}

		@Override
		public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, Duration period) {
			return super.scheduleAtFixedRate(reported(task), aligned(Instant.now()), period);
		}

		// each firing is reported, run or skipped
		private Runnable reported(Runnable task) {
			return () -> {
				WorkerEvents.emit("fired", "id", this.id, "at", System.currentTimeMillis());
				task.run();
			};
		}

		private Instant aligned(Instant startTime) {
			long from = startTime.toEpochMilli();
			return Instant.ofEpochMilli(from + Math.floorMod(this.phase - from, PERIOD_MILLIS));
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	@ImportAutoConfiguration({ ZkLockAutoConfiguration.class, DistributedLockAutoConfiguration.class })
	static class WorkerConfiguration {

		@Bean
		Job job(@Value("${spring.application.name}") String id) {
			return new Job(id);
		}

	}

	/**
	 * The fast scheduled job.
	 */
	public static class Job {

		private final String id;

		public Job(String id) {
			this.id = id;
		}

		@Scheduled(fixedRate = PERIOD_MILLIS)
		@DistributedLock(name = "tick", timeout = "0", onTimeout = OnTimeout.SKIP, minHold = "${job.min-hold:}")
		public void tick() throws InterruptedException {
			long start = System.currentTimeMillis();
			// the job's work
			Thread.sleep(50);
			WorkerEvents.emit("run", "id", this.id, "start", start, "end", System.currentTimeMillis());
		}

	}

}
