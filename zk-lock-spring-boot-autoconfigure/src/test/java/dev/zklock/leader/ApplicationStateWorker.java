package dev.zklock.leader;

import java.util.Map;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.availability.ApplicationAvailabilityAutoConfiguration;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import dev.zklock.LockContext;
import dev.zklock.annotation.Leader;
import dev.zklock.aop.WorkerApplications;
import dev.zklock.autoconfigure.DistributedLockAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockLeaderAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockLeaderHealthAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockLeaderReadinessAutoConfiguration;
import dev.zklock.faults.WorkerEvents;

/**
 * Main class of an application JVM whose leadership of role {@value #ROLE} follows
 * its readiness and its health group {@value #HEALTH_GROUP} (indicator
 * {@code jobStore}). The leader's {@code @Scheduled} {@code @Leader} method runs
 * long, up to {@value #LONGEST_RUN_MILLIS} ms, looking every 20 ms whether it still
 * leads, as a long-running leader job does. Reports, as {@link LeaderTimeline}
 * reads them: {@code granted}, {@code revoked}, {@code started} and {@code run}
 * of each run, {@code told} when a run saw that it no longer leads, and each
 * command with its time. Arguments: {@code --id=}, {@code --connect=},
 * {@code --yield-after=}. Commands: {@code refuse} and {@code accept} (readiness
 * REFUSING_TRAFFIC and ACCEPTING_TRAFFIC), {@code down} and {@code up} (the
 * indicator's status), {@code exit}.
 */
public final class ApplicationStateWorker {

	static final String ROLE = "dispatcher";

	static final String HEALTH_GROUP = "jobs";

	static final String BASE_PATH = "/leader-state";

	static final long LONGEST_RUN_MILLIS = 5_000;

	private ApplicationStateWorker() {
	}

	public static void main(String[] args) throws Exception {
		Map<String, String> arguments = WorkerApplications.arguments(args);
		String id = arguments.get("id");
		Map<String, Object> properties = WorkerApplications.properties(arguments, BASE_PATH);
		properties.put("zk-lock.leadership.health-group", HEALTH_GROUP);
		properties.put("zk-lock.leadership.yield-after", arguments.get("yield-after"));
		properties.put("management.endpoint.health.group." + HEALTH_GROUP + ".include", "jobStore");
		// joins, leaves and stand-asides, for the log tail a failing test shows
		properties.put("logging.level.dev.zklock.leader", "DEBUG");
		properties.put("logging.level.dev.zklock.leader.LeaderInterceptor", "INFO");
		properties.put("logging.level.dev.zklock.core.RoleCandidacy", "DEBUG");
		properties.put("logging.level.dev.zklock.core.RoleElection", "DEBUG");
		ConfigurableApplicationContext context = WorkerApplications.builder(WorkerConfiguration.class, properties)
			.run();
		SwitchableHealth jobStore = context.getBean("jobStore", SwitchableHealth.class);
		WorkerApplications.serve(context, id, (command) -> {
			WorkerEvents.emit(command, "id", id, "at", System.currentTimeMillis());
			switch (command) {
				case "refuse" -> AvailabilityChangeEvent.publish(context, ReadinessState.REFUSING_TRAFFIC);
				case "accept" -> AvailabilityChangeEvent.publish(context, ReadinessState.ACCEPTING_TRAFFIC);
				case "down" -> jobStore.set(Status.DOWN);
				case "up" -> jobStore.set(Status.UP);
				default -> throw new IllegalArgumentException("Unknown command " + command);
			}
		});
	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	@ImportAutoConfiguration({ ApplicationAvailabilityAutoConfiguration.class, HealthContributorAutoConfiguration.class,
			HealthContributorRegistryAutoConfiguration.class, EndpointAutoConfiguration.class,
			HealthEndpointAutoConfiguration.class, ZkLockAutoConfiguration.class, DistributedLockAutoConfiguration.class,
			ZkLockLeaderAutoConfiguration.class, ZkLockLeaderReadinessAutoConfiguration.class,
			ZkLockLeaderHealthAutoConfiguration.class })
	static class WorkerConfiguration {

		@Bean
		SwitchableHealth jobStore() {
			return new SwitchableHealth();
		}

		@Bean
		Dispatcher dispatcher(@Value("${spring.application.name}") String id) {
			return new Dispatcher(id);
		}

		@Bean
		LeaderWorker.Reporter reporter(@Value("${spring.application.name}") String id) {
			return new LeaderWorker.Reporter(id);
		}

	}

	/**
	 * The long-running job that only the leader runs.
	 */
	public static class Dispatcher {

		private final String id;

		public Dispatcher(String id) {
			this.id = id;
		}

		@Scheduled(fixedDelay = 100)
		@Leader(ROLE)
		public void dispatch() throws InterruptedException {
			LockContext leadership = LockContext.current();
			long token = leadership.fencingToken();
			long start = System.currentTimeMillis();
			WorkerEvents.emit("started", "id", this.id, "token", token, "at", start);
			// the job's work, in slices, for as long as it leads
			while (leadership.isHeld() && System.currentTimeMillis() - start < LONGEST_RUN_MILLIS) {
				Thread.sleep(20);
			}
			long end = System.currentTimeMillis();
			if (!leadership.isHeld()) {
				WorkerEvents.emit("told", "id", this.id, "token", token, "at", end);
			}
			WorkerEvents.emit("run", "id", this.id, "token", token, "start", start, "end", end);
		}

	}

}
