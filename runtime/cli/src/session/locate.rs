//! Line numbers for a session file's steps. JSON5 parsers hand back values
//! without positions, so this scans the text itself (strings and comments
//! aware) for the `steps` array and where each element starts.

/// The 1-based line each element of the top-level `steps` array starts on.
pub fn step_lines(text: &str) -> Vec<usize> {
    let chars: Vec<char> = text.chars().collect();
    let mut line = 1;
    let mut depth = 0i32;
    let mut i = 0;
    let mut in_steps: Option<i32> = None; // the depth inside the steps array
    let mut lines = Vec::new();
    let mut last_key = String::new();
    let mut expecting_element = false;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\n' => line += 1,
            '/' if chars.get(i + 1) == Some(&'/') => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                continue;
            }
            '/' if chars.get(i + 1) == Some(&'*') => {
                i += 2;
                while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                    if chars[i] == '\n' {
                        line += 1;
                    }
                    i += 1;
                }
                i += 2;
                continue;
            }
            '"' | '\'' => {
                let quote = c;
                let start_line = line;
                let mut s = String::new();
                i += 1;
                while i < chars.len() && chars[i] != quote {
                    if chars[i] == '\\' {
                        i += 1;
                    }
                    if chars.get(i) == Some(&'\n') {
                        line += 1;
                    }
                    if let Some(ch) = chars.get(i) {
                        s.push(*ch);
                    }
                    i += 1;
                }
                if in_steps == Some(depth) && expecting_element {
                    lines.push(start_line);
                    expecting_element = false;
                }
                last_key = s;
            }
            '{' | '[' => {
                if in_steps == Some(depth) && expecting_element {
                    lines.push(line);
                    expecting_element = false;
                }
                depth += 1;
                if c == '[' && depth == 2 && last_key == "steps" && in_steps.is_none() {
                    in_steps = Some(depth);
                    expecting_element = true;
                }
            }
            '}' | ']' => {
                if in_steps == Some(depth) && c == ']' {
                    in_steps = Some(-1);
                }
                depth -= 1;
            }
            ',' if in_steps == Some(depth) => expecting_element = true,
            c if c.is_alphanumeric() || c == '_' || c == '$' => {
                let mut s = String::new();
                while i < chars.len()
                    && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '$')
                {
                    s.push(chars[i]);
                    i += 1;
                }
                last_key = s;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    lines
}

#[cfg(test)]
mod tests {
    #[test]
    fn finds_each_step_line_past_comments_and_strings() {
        let text = "{\n  run: { profiles: [] },\n  // steps: [ not this ]\n  steps: [\n    { start: { agent: \"a\" } },\n    /* { x } */\n    { turn: { agent: \"a\", program: \"let s = '{[';\" } },\n  ],\n}\n";
        assert_eq!(super::step_lines(text), vec![5, 7]);
    }
}
