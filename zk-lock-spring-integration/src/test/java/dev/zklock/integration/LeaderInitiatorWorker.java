package dev.zklock.integration;

import java.util.Map;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.LockRegistry;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import dev.zklock.LockContext;
import dev.zklock.aop.WorkerApplications;
import dev.zklock.autoconfigure.DistributedLockAutoConfiguration;
import dev.zklock.autoconfigure.ZkLockAutoConfiguration;
import dev.zklock.faults.WorkerEvents;
import dev.zklock.integration.autoconfigure.ZkLockIntegrationAutoConfiguration;

/**
 * Main class of an application JVM where Spring Integration's
 * {@link LockRegistryLeaderInitiator} runs over the auto-configured
 * {@link ZkLockRegistry}, with a 200 ms heartbeat. Its candidate reports
 * {@code @@ granted id= token= at=} (the token read from
 * {@link LockContext#current()} on the thread that holds the lock) and
 * {@code @@ revoked id= token= at=}; while it leads, a job writes
 * {@code @@ write id= token=} every 100 ms. Command {@code write}: one write with
 * the last granted token, leader or not ({@code late=true}). Arguments:
 * {@code --id=}, {@code --connect=}.
 */
public final class LeaderInitiatorWorker {

	private LeaderInitiatorWorker() {
	}

	public static void main(String[] args) throws Exception {
		Map<String, String> arguments = WorkerApplications.arguments(args);
		String id = arguments.get("id");
		Map<String, Object> properties = WorkerApplications.properties(arguments, "/integration-processes");
		properties.put("zk-lock.integration.lock-registry.enabled", "true");
		ConfigurableApplicationContext context = WorkerApplications.builder(WorkerConfiguration.class, properties)
			.run();
		Candidate candidate = context.getBean(Candidate.class);
		WorkerApplications.serve(context, id, (command) -> {
			if (command.equals("write")) {
				WorkerEvents.emit("write", "id", id, "token", candidate.token, "late", true);
			}
		});
	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	@ImportAutoConfiguration({ ZkLockAutoConfiguration.class, DistributedLockAutoConfiguration.class,
			ZkLockIntegrationAutoConfiguration.class })
	static class WorkerConfiguration {

		@Bean
		Candidate candidate(@Value("${spring.application.name}") String id) {
			return new Candidate(id);
		}

		@Bean
		LockRegistryLeaderInitiator leaderInitiator(LockRegistry<?> registry, Candidate candidate) {
			LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(registry, candidate);
			initiator.setHeartBeatMillis(200);
			initiator.setBusyWaitMillis(50);
			return initiator;
		}

	}

	/**
	 * Reports grants and revocations, and writes while it leads.
	 */
	public static class Candidate extends DefaultCandidate {

		private final String id;

		volatile long token;

		private volatile boolean leading;

		public Candidate(String id) {
			super(id, "leader");
			this.id = id;
		}

		@Override
		public void onGranted(Context context) {
			this.token = LockContext.current().fencingToken();
			this.leading = true;
			WorkerEvents.emit("granted", "id", this.id, "token", this.token, "at", System.nanoTime());
		}

		@Override
		public void onRevoked(Context context) {
			this.leading = false;
			WorkerEvents.emit("revoked", "id", this.id, "token", this.token, "at", System.nanoTime());
		}

		@Scheduled(fixedRate = 100)
		public void write() {
			if (this.leading) {
				WorkerEvents.emit("write", "id", this.id, "token", this.token);
			}
		}

	}

}
