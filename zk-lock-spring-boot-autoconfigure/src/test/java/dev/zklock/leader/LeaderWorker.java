package dev.zklock.leader;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import dev.zklock.LeadershipGrantedEvent;
import dev.zklock.LeadershipRevokedEvent;
import dev.zklock.LockContext;
import dev.zklock.annotation.Leader;
import dev.zklock.aop.WorkerApplications;
import dev.zklock.autoconfigure.DistributedLockAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockLeaderAutoConfiguration;
import dev.zklock.faults.WorkerEvents;

/**
 * Main class of an application JVM that competes for role {@value #ROLE}: a
 * {@code @Scheduled(fixedRate = 200)} {@code @Leader} job writes to the fence with
 * its token at the start and the end of each run, and the leadership events are
 * reported. Every report is a line {@code @@ type name=value...} with wall-clock
 * times ({@link WorkerEvents}), read by {@link LeaderTimeline}. Arguments: {@code --id=}, {@code --connect=}.
 * Commands: {@code write} (a write with the last granted token, leader or not),
 * {@code exit} (close the application: a graceful shutdown).
 */
public final class LeaderWorker {

	static final String ROLE = "ticker";

	/**
	 * Small, quick-starting JVMs, so that three run beside the build.
	 */
	static final List<String> JVM_OPTIONS = List.of("-Xmx128m", "-Xss512k", "-XX:+UseSerialGC",
			"-XX:TieredStopAtLevel=1", "-XX:-UsePerfData");

	private LeaderWorker() {
	}

	public static void main(String[] args) throws Exception {
		Map<String, String> arguments = WorkerApplications.arguments(args);
		String id = arguments.get("id");
		Map<String, Object> properties = new LinkedHashMap<>();
		properties.put("spring.application.name", id);
		properties.put("zk-lock.connect-string", arguments.get("connect"));
		properties.put("zk-lock.session-timeout", "4s");
		properties.put("zk-lock.base-path", "/leader-processes");
		properties.put("zk-lock.startup.wait", "30s");
		// joins and leaves, for the log tail a failing test shows
		properties.put("logging.level.dev.zklock.core.RoleCandidacy", "DEBUG");
		ConfigurableApplicationContext context = WorkerApplications.builder(WorkerConfiguration.class, properties)
			.run();
		Reporter reporter = context.getBean(Reporter.class);
		WorkerApplications.serve(context, id, (command) -> {
			if (command.equals("write")) {
				WorkerEvents.emit("write", "id", id, "token", reporter.lastToken, "late", true);
			}
		});
	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	@ImportAutoConfiguration({ ZkLockAutoConfiguration.class, DistributedLockAutoConfiguration.class,
			ZkLockLeaderAutoConfiguration.class })
	static class WorkerConfiguration {

		@Bean
		Ticker ticker(@Value("${spring.application.name}") String id) {
			return new Ticker(id);
		}

		@Bean
		Reporter reporter(@Value("${spring.application.name}") String id) {
			return new Reporter(id);
		}

	}

	/**
	 * The job that only the leader runs.
	 */
	public static class Ticker {

		private final String id;

		public Ticker(String id) {
			this.id = id;
		}

		@Scheduled(fixedRate = 200)
		@Leader(ROLE)
		public void tick() throws InterruptedException {
			LockContext leadership = LockContext.current();
			long token = leadership.fencingToken();
			long start = System.currentTimeMillis();
			WorkerEvents.emit("write", "id", this.id, "token", token);
			// the job's work
			Thread.sleep(50);
			WorkerEvents.emit("write", "id", this.id, "token", token);
			WorkerEvents.emit("run", "id", this.id, "token", token, "start", start, "end",
					System.currentTimeMillis());
		}

	}

	/**
	 * Reports the leadership events.
	 */
	public static class Reporter {

		private final String id;

		volatile long lastToken;

		public Reporter(String id) {
			this.id = id;
		}

		@EventListener
		public void granted(LeadershipGrantedEvent event) {
			this.lastToken = event.getFencingToken();
			WorkerEvents.emit("granted", "id", this.id, "token", event.getFencingToken(), "at",
					System.currentTimeMillis());
		}

		@EventListener
		public void revoked(LeadershipRevokedEvent event) {
			WorkerEvents.emit("revoked", "id", this.id, "token", event.getFencingToken(), "reason", event.getReason(), "at",
					System.currentTimeMillis());
		}

	}

}
