package dev.zklock.schedules;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import dev.zklock.schedules.Schedule.FaultKind;
import dev.zklock.schedules.Schedule.FaultStep;
import dev.zklock.testsupport.LoopbackFirewall;
import dev.zklock.testsupport.ZooKeeperEnsemble;
import dev.zklock.testsupport.ZooKeeperEnsemble.Member;

/**
 * Injects the soak's faults: those of processes ({@code kill -9}, {@code SIGSTOP}),
 * of the ensemble (a member's or the leader's restart) and of the firewall (the
 * leader cut off, no quorum, a client cut off). A fault of a client's own connection
 * goes to its process, which records it. One fault of the ensemble or the firewall at
 * a time: healing the firewall heals every cut.
 */
final class SoakFaults {

	private static final Logger logger = LoggerFactory.getLogger(SoakFaults.class);

	/** Well within the clients' session. */
	static final Duration SHORT_STOP = Duration.ofMillis(1_000);

	/** How long a partition lasts: past the clients' session. */
	static final Duration PARTITION = FaultInjector.LONG_BLACKHOLE;

	private final ZooKeeperEnsemble ensemble;

	private final LoopbackFirewall firewall;

	private final List<ClientProcess> clients;

	private final History history;

	private final ScheduledExecutorService timers;

	private final AtomicBoolean serversBusy = new AtomicBoolean();

	SoakFaults(ZooKeeperEnsemble ensemble, LoopbackFirewall firewall, List<ClientProcess> clients, History history,
			ScheduledExecutorService timers) {
		this.ensemble = ensemble;
		this.firewall = firewall;
		this.clients = clients;
		this.history = history;
		this.timers = timers;
	}

	void inject(FaultStep fault) {
		FaultKind kind = fault.kind();
		ClientProcess client = this.clients.get(fault.client());
		if (!kind.soakOnly && !kind.ofServers()) {
			client.fault(fault);
			return;
		}
		long start = System.nanoTime();
		int target = kind.ofServers() ? -1 : fault.client();
		boolean servers = kind.ofServers() || kind == FaultKind.CUT_FROM_SERVERS;
		if (servers && !this.serversBusy.compareAndSet(false, true) || !servers && !client.isAlive()) {
			this.history.fault(new History.Fault(kind, target, start, start, false));
			return;
		}
		try {
			switch (kind) {
				case KILL -> client.kill();
				case STOP_WITHIN_SESSION -> stop(fault, client, SHORT_STOP, start);
				case STOP_PAST_SESSION -> stop(fault, client, FaultInjector.LONG_BLACKHOLE, start);
				case SERVER_RESTART -> followers().get(ThreadLocalRandom.current().nextInt(2)).restart();
				case LEADER_RESTART -> this.ensemble.leader().restart();
				case LEADER_ISOLATED -> {
					Member leader = this.ensemble.leader();
					List<Member> followers = followers();
					this.firewall.cutBetween(List.of(leader.uid()), leader.peerPorts(),
							followers.stream().map(Member::uid).toList(),
							followers.stream().flatMap((member) -> member.peerPorts().stream()).toList());
					heal(fault, start);
				}
				case QUORUM_LOST -> {
					List<Member> members = this.ensemble.members();
					this.firewall.cut(members.stream().map(Member::uid).toList(),
							members.stream().flatMap((member) -> member.peerPorts().stream()).toList());
					heal(fault, start);
				}
				case CUT_FROM_SERVERS -> {
					this.firewall.cut(List.of(this.firewall.uid(ProcessScheduleRunner.user(fault.client()))),
							this.ensemble.members().stream().map(Member::clientPort).toList());
					heal(fault, start);
				}
				default -> throw new IllegalArgumentException(kind + " is a fault of a client's connection");
			}
			if (kind == FaultKind.KILL || kind == FaultKind.SERVER_RESTART || kind == FaultKind.LEADER_RESTART) {
				this.history.fault(new History.Fault(kind, target, start, System.nanoTime(), true));
			}
		}
		catch (RuntimeException ex) {
			logger.info("Fault {} not injected: {}", fault, ex.toString());
			this.history.fault(new History.Fault(kind, target, start, System.nanoTime(), false));
			if (servers) {
				this.serversBusy.set(false);
			}
		}
		finally {
			if (kind == FaultKind.SERVER_RESTART || kind == FaultKind.LEADER_RESTART) {
				this.serversBusy.set(false);
			}
		}
	}

	private List<Member> followers() {
		Member leader = this.ensemble.leader();
		return this.ensemble.members().stream().filter((member) -> member != leader).toList();
	}

	private void stop(FaultStep fault, ClientProcess client, Duration length, long start) {
		client.pause();
		this.timers.schedule(() -> {
			client.resume();
			this.history.fault(new History.Fault(fault.kind(), fault.client(), start, System.nanoTime(), true));
		}, length.toMillis(), TimeUnit.MILLISECONDS);
	}

	private void heal(FaultStep fault, long start) {
		this.timers.schedule(() -> {
			this.firewall.heal();
			this.history.fault(new History.Fault(fault.kind(), fault.kind().ofServers() ? -1 : fault.client(), start,
					System.nanoTime(), true));
			this.serversBusy.set(false);
		}, PARTITION.toMillis(), TimeUnit.MILLISECONDS);
	}

}
