# bash completion for stepguard(1)                        -*- shell-script -*-
# SPDX-License-Identifier: MIT
#
# Installed as share/bash-completion/completions/stepguard, where
# bash-completion loads it on first use.  It also works sourced on its own:
# of bash-completion it uses only _command_offset, when present, for the
# command after "--".
#
# The option lists are those of "stepguard --help" and "stepguard audit
# --help"; tests/pkg/run.sh checks them against the binary.

_stepguard_options='-p --policy --rules-dir -s --step -w --workdir --allow-write
	--filter --mode --log --user --check --self-test --model-cli --unload --force
	--json -v --verbose -q --quiet --version -h --help'
_stepguard_audit_options='--json --github -s --step -h --help'
_stepguard_filters='auto bpf-lsm bpf-fmod landlock'
_stepguard_modes='enforce audit'

# _stepguard_reply WORDS CUR [PREFIX]: the words that start with CUR, each
# behind PREFIX (the "--opt=" of a word that bash did not split at "=").
_stepguard_reply() {
	local w
	for w in $1; do
		[[ $w == "$2"* ]] && COMPREPLY+=("$3$w")
	done
	return 0
}

# _stepguard_files f|d CUR [PREFIX]: file or directory names.
_stepguard_files() {
	local IFS=$'\n' w
	for w in $(compgen -"$1" -- "$2"); do
		COMPREPLY+=("$3$w")
	done
	# compopt works only while readline completes; sourced in a test it
	# complains, and the names are the same either way.
	compopt -o filenames 2>/dev/null
	return 0
}

# _stepguard_value OPTION CUR [PREFIX]: the values of OPTION, or status 1
# when OPTION takes no value.
_stepguard_value() {
	case $1 in
	--filter) _stepguard_reply "$_stepguard_filters" "$2" "$3" ;;
	--mode) _stepguard_reply "$_stepguard_modes" "$2" "$3" ;;
	-p | --policy | --log | --allow-write | --model-cli) _stepguard_files f "$2" "$3" ;;
	--rules-dir | -w | --workdir) _stepguard_files d "$2" "$3" ;;
	--user)
		local IFS=$'\n' w
		for w in $(compgen -u -- "$2"); do
			COMPREPLY+=("$3$w")
		done
		;;
	-s | --step) ;; # a name of the caller's choosing
	*) return 1 ;;
	esac
	return 0
}

# The command after stepguard's options (at word START): its name, then
# its own arguments.
_stepguard_command() {
	local start=$1
	if declare -F _command_offset >/dev/null; then
		_command_offset "$start"
	elif ((COMP_CWORD == start)); then
		mapfile -t COMPREPLY < <(compgen -c -- "${COMP_WORDS[COMP_CWORD]}" | sort -u)
	else
		_stepguard_files f "${COMP_WORDS[COMP_CWORD]}"
	fi
}

_stepguard() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev='' i=1 word
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	COMPREPLY=()

	# With "=" in COMP_WORDBREAKS (the default), "--filter=b" reaches us as
	# the words "--filter", "=", "b", and readline completes only what
	# follows the "=".
	if [[ $cur == = ]]; then
		cur=
	elif [[ $prev == = ]] && ((COMP_CWORD >= 2)); then
		prev=${COMP_WORDS[COMP_CWORD - 2]}
	fi

	# stepguard audit: the subcommand must be the first argument.
	if [[ ${COMP_WORDS[1]-} == audit ]] && ((COMP_CWORD > 1)); then
		case $prev in
		-s | --step) return 0 ;;
		esac
		if [[ $cur == -* ]]; then
			_stepguard_reply "$_stepguard_audit_options" "$cur"
		else
			_stepguard_files f "$cur" # the logs ("-": standard input)
		fi
		return 0
	fi

	# stepguard's options end at "--" or at the first word that is neither
	# an option nor an option's value: from there on it is the command.
	while ((i < COMP_CWORD)); do
		word=${COMP_WORDS[i]}
		case $word in
		--)
			_stepguard_command $((i + 1))
			return 0
			;;
		-p | --policy | --rules-dir | -s | --step | -w | --workdir | \
			--allow-write | --filter | --mode | --log | --user | --model-cli)
			# skip its value, given as the next word or as "=" "value"
			if [[ ${COMP_WORDS[i + 1]-} == = ]]; then
				((i += 2))
			else
				((i += 1))
			fi
			;;
		-*) ;;
		*)
			_stepguard_command "$i"
			return 0
			;;
		esac
		((i += 1))
	done

	# The value of the option before it.
	_stepguard_value "$prev" "$cur" && return 0
	# "--filter=b" as one word, when "=" is not in COMP_WORDBREAKS.
	if [[ $cur == --*=* ]]; then
		_stepguard_value "${cur%%=*}" "${cur#*=}" "${cur%%=*}=" && return 0
	fi

	if [[ -z $cur || $cur == -* ]]; then
		_stepguard_reply "$_stepguard_options" "$cur"
		((COMP_CWORD == 1)) && _stepguard_reply audit "$cur"
	else
		# the first operand is the command (or, first of all, audit)
		local commands
		mapfile -t commands < <(compgen -c -- "$cur" | sort -u)
		((COMP_CWORD == 1)) && _stepguard_reply audit "$cur"
		COMPREPLY+=("${commands[@]}")
	fi
	return 0
}

complete -F _stepguard stepguard
