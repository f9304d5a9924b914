package dev.zklock.schedules;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.zklock.annotation.LockMode;
import dev.zklock.schedules.Schedule.DeleteNode;
import dev.zklock.schedules.Schedule.Family;
import dev.zklock.schedules.Schedule.Nested;
import dev.zklock.schedules.Schedule.Step;

import static dev.zklock.schedules.Gen.weight;

/**
 * Deadlocks for {@link ScheduleArbitraries} (#42): in a share of schedules, two or
 * three workers nest two keys each in opposite orders (A takes x then y, B takes y
 * then x; or x, y, z in a ring), in MUTEX, WRITE inside WRITE, or READ inside WRITE
 * against WRITE. The members are workers without other steps, of any clients, two of
 * one client now and then (threads of one process), so that each starts on time and
 * every outer lock is held before the first inner one is asked for. Their keys are
 * their own ({@link #KEYS}): the random steps' collections of keys take {@code a} then
 * {@code b}, and a cycle through one of them would be one the history cannot show,
 * since it records a hold only once all its keys are taken. The random faults hit
 * them as any client.
 */
final class Cycles {

	/** The share of schedules with a cycle, in percent. */
	static final int PERCENT = 40;

	/** The keys of the cycles' locks, none of a random step's. */
	static final List<String> KEYS = List.of("x", "y", "z");

	/**
	 * Each nested acquisition's timeout: a cycle that is never broken must outlast the
	 * checker's bound before the timeouts break it.
	 */
	static final long TIMEOUT_MILLIS = ScheduleClient.DEADLOCK_AFTER.plus(DeadlockChecks.BOUND_SLACK)
		.plus(Duration.ofMillis(1_500))
		.toMillis();

	private enum Modes {

		MUTEX, WRITE_IN_WRITE, READ_IN_WRITE

	}

	private Cycles() {
	}

	/**
	 * Schedules as drawn, a cycle added to a share of them: drawn after the schedule,
	 * so that a seed still draws the schedule it drew before, with a cycle or not on
	 * top.
	 * @param schedules the schedules
	 * @return the schedules, some with a cycle
	 */
	static Gen<Schedule> added(Gen<Schedule> schedules) {
		Gen<Boolean> add = Gen.frequency(weight(PERCENT, true), weight(100 - PERCENT, false));
		return (random) -> {
			Schedule schedule = schedules.next(random);
			if (!add.next(random)) {
				return schedule;
			}
			List<Step> cycle = cycle(freeWorkers(schedule)).next(random);
			if (cycle.isEmpty()) {
				return schedule;
			}
			List<Step> steps = new ArrayList<>(schedule.steps());
			steps.addAll(cycle);
			return new Schedule(List.copyOf(steps), schedule.faults());
		};
	}

	/**
	 * The steps of one cycle on the given workers, or none when too few are free.
	 * @param free the workers free, as {@code {client, worker}}
	 * @return the steps
	 */
	static Gen<List<Step>> cycle(List<int[]> free) {
		Gen<Integer> size = Gen.frequency(weight(3, 2), weight(1, 3));
		Gen<Modes> modes = Gen.of(Modes.class);
		Gen<Long> start = Gen.millis(50, 50);
		Gen<Long> apart = Gen.of(0L, 50L, 100L);
		Gen<Long> hold = Gen.of(300L, 400L);
		return (random) -> {
			int members = size.next(random);
			if (free.size() < members) {
				return List.of();
			}
			List<int[]> left = new ArrayList<>(free);
			Modes mode = modes.next(random);
			long at = start.next(random);
			long outerHold = hold.next(random);
			List<Step> steps = new ArrayList<>();
			for (int i = 0; i < members; i++) {
				int[] worker = left.remove(random.nextInt(left.size()));
				Family family = (mode == Modes.MUTEX) ? Family.MUTEX : Family.READ_WRITE;
				LockMode outer = (mode == Modes.MUTEX) ? LockMode.MUTEX : LockMode.WRITE;
				LockMode inner = (mode == Modes.READ_IN_WRITE && i == 0) ? LockMode.READ : outer;
				steps.add(new Step(worker[0], worker[1], at, new Nested(family, KEYS.get(i), outer,
						KEYS.get((i + 1) % members), inner, TIMEOUT_MILLIS, outerHold, 50)));
				at += apart.next(random);
			}
			return steps;
		};
	}

	// the workers with no step of the schedule, so that a member starts at its offset
	static List<int[]> freeWorkers(Schedule schedule) {
		List<int[]> free = new ArrayList<>();
		for (int client = 0; client < Schedule.CLIENTS; client++) {
			for (int worker = 0; worker < Schedule.WORKERS; worker++) {
				int c = client;
				int w = worker;
				if (schedule.steps()
					.stream()
					.noneMatch((step) -> !(step.op() instanceof DeleteNode) && step.client() == c && step.worker() == w)) {
					free.add(new int[] { client, worker });
				}
			}
		}
		return free;
	}

}
